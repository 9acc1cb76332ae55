package txlog.util

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.expressions.{
  AttributeReference,
  BoundReference,
  Expression,
  Predicate
}
import org.apache.spark.sql.execution.datasources.{FileIndex, PartitionDirectory}
import org.apache.spark.sql.types.StructType

/** Spark's view of files already selected: the directories are worked out once (the change files of
  * a range of commits, `changes.ChangeFiles`; the files of one OPTIMIZE bin, [[FileGroups]]); each
  * holds files sharing their partition-like values (the table's partition values, and for change
  * files `_commit_version`, `_commit_timestamp`), which partition filters prune here, since Spark
  * does not filter partition values again after the scan; the parts of a checkpoint as the log's
  * listing found them (`replay.LogActions.listedParquet`). `roots` are its root paths as Spark
  * shows them (the table's root, or the files). Equal only to itself.
  *
  * {{{
  * new FixedFileIndex(Seq(root), "versions 2 to 5", partitionSchema, directories, bytes)
  * }}}
  */
private[txlog] final class FixedFileIndex(
    roots: Seq[String],
    label: String,
    override val partitionSchema: StructType,
    directories: Seq[PartitionDirectory],
    bytes: Long
) extends FileIndex {

  override def rootPaths: Seq[Path] = roots.map(new Path(_))

  override def listFiles(
      partitionFilters: Seq[Expression],
      dataFilters: Seq[Expression]
  ): Seq[PartitionDirectory] = {
    val usable = partitionFilters.map(PartitionPruning.withSubqueryResults)
    if (usable.isEmpty) directories
    else {
      val names = partitionSchema.fieldNames
      val bound = Predicate.createInterpreted(
        usable.reduce(org.apache.spark.sql.catalyst.expressions.And).transform {
          case a: AttributeReference =>
            val i = names.indexWhere(_.equalsIgnoreCase(a.name))
            BoundReference(i, partitionSchema(i).dataType, nullable = true)
        }
      )
      directories.filter(d => bound.eval(d.values))
    }
  }

  override def inputFiles: Array[String] =
    directories.flatMap(_.files.map(_.getPath.toString)).distinct.toArray

  /** The selected files do not change: nothing to refresh. */
  override def refresh(): Unit = ()

  override def sizeInBytes: Long = bytes

  override def toString: String = s"FixedFileIndex(${roots.mkString(", ")}, $label)"
}
