package txlog.changes

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.expressions.{
  AttributeReference,
  BoundReference,
  Expression,
  Predicate
}
import org.apache.spark.sql.execution.datasources.{FileIndex, PartitionDirectory}
import org.apache.spark.sql.types.StructType

import txlog.scan.PartitionPruning

/** Spark's view of the change files of one range: the directories are worked out once (from the
  * range's commits, [[ChangeFiles]]); each holds files sharing their partition-like values (the
  * table's partition values, `_commit_version`, `_commit_timestamp`), which partition filters prune
  * here, since Spark does not filter partition values again after the scan.
  *
  * {{{
  * new ChangeFileIndex(root, "versions 2 to 5", partitionSchema, directories, bytes)
  * }}}
  */
private[txlog] final class ChangeFileIndex(
    root: String,
    label: String,
    override val partitionSchema: StructType,
    directories: Seq[PartitionDirectory],
    bytes: Long
) extends FileIndex {

  override def rootPaths: Seq[Path] = Seq(new Path(root))

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

  /** The range's files do not change: nothing to refresh. */
  override def refresh(): Unit = ()

  override def sizeInBytes: Long = bytes

  override def toString: String = s"ChangeFileIndex($root, $label)"
}
