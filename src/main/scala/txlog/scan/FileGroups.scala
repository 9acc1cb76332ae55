package txlog.scan

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.execution.datasources.{FileIndex, HadoopFsRelation, PartitionDirectory}
import org.apache.spark.sql.types.StructType

import txlog.Snapshot

/** The rows of some of a snapshot's files as one DataFrame per group of them (OPTIMIZE's bins),
  * deletion vectors applied: the files selected by one Spark job (as a scan of them all would
  * select them), then each group read through a relation over its part of that selection. A group
  * read by one task (`coalesce(1)`) then needs no shuffle to come together.
  *
  * {{{
  * val perBin = FileGroups.dataFrames(snapshot, paths, Seq(Seq(uriA, uriB), Seq(uriC)))
  * }}}
  */
private[txlog] object FileGroups {

  /** One DataFrame per group of `groups`, each group a list of file URIs (a file's path resolved
    * against the table root, `toUri.toString`, as `_metadata.file_path` gives it); `only` names the
    * files of all groups by their add paths (a DataFrame with `path`). A file of a group that is
    * not live in the snapshot is an error (IllegalStateException): a group never silently reads
    * fewer files than it names.
    */
  def dataFrames(snapshot: Snapshot, only: DataFrame, groups: Seq[Seq[String]]): Seq[DataFrame] = {
    val table = ScanTable(snapshot)
    val selected = new SnapshotFileIndex(snapshot, table, Some(only)).listFiles(Nil, Nil)
    groups.map { group =>
      val names = group.toSet
      val dirs = selected
        .map(d => d.copy(files = d.files.filter(f => names(f.getPath.toUri.toString))))
        .filter(_.files.nonEmpty)
      val found = dirs.map(_.files.size).sum
      if (found != names.size) {
        val seen = dirs.flatMap(_.files.map(_.getPath.toUri.toString)).toSet
        throw new IllegalStateException(
          s"${names.size - found} of the ${names.size} files of a group are not live in " +
            s"${snapshot.tablePath} v${snapshot.version}, e.g. ${(names -- seen).head}"
        )
      }
      val relation = HadoopFsRelation(
        location = new FixedFileIndex(snapshot.tablePath, table.partitionSchema, dirs),
        partitionSchema = table.partitionSchema,
        dataSchema = table.dataSchema,
        bucketSpec = None,
        fileFormat = new TableParquetFormat(table),
        options = Map.empty
      )(snapshot.spark)
      snapshot.spark.baseRelationToDataFrame(relation)
    }
  }
}

/** Files already selected: the scan reads exactly these. It takes no partition filters (its
  * relations are OPTIMIZE's, which filter nothing); data filters Spark applies to the rows.
  */
private[scan] final class FixedFileIndex(
    root: String,
    override val partitionSchema: StructType,
    dirs: Seq[PartitionDirectory]
) extends FileIndex {

  override def rootPaths: Seq[Path] = Seq(new Path(root))

  override def listFiles(
      partitionFilters: Seq[Expression],
      dataFilters: Seq[Expression]
  ): Seq[PartitionDirectory] = {
    if (partitionFilters.nonEmpty) {
      throw new IllegalStateException(
        s"a scan of a fixed group of files of $root was given partition filters"
      )
    }
    dirs
  }

  override def inputFiles: Array[String] =
    dirs.flatMap(_.files.map(_.getPath.toString)).toArray

  override def refresh(): Unit = ()

  override def sizeInBytes: Long = dirs.map(_.files.map(_.getLen).sum).sum

  // one index per group: equal only to itself, so that no two groups' scans are taken for one
  override def equals(other: Any): Boolean = other match {
    case o: AnyRef => o eq this
    case _         => false
  }

  override def hashCode: Int = System.identityHashCode(this)
}
