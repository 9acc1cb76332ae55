package txlog.scan

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.execution.datasources.{FileIndex, HadoopFsRelation, PartitionDirectory}
import org.apache.spark.sql.types.StructType

import txlog.Snapshot

/** The rows of some of a snapshot's files as one relation per group of them (OPTIMIZE's bins),
  * deletion vectors applied: the files selected by one Spark job (as a scan of them all would
  * select them), then each group read through a relation over its part of that selection. A group
  * read by one task (`coalesce(1)`) then needs no shuffle to come together.
  *
  * {{{
  * val perBin = FileGroups.relations(snapshot, paths, Seq(Seq(uriA, uriB), Seq(uriC)))
  * val df = spark.baseRelationToDataFrame(perBin.head)
  * }}}
  */
private[txlog] object FileGroups {

  /** One relation per group of `groups`, each group a list of file URIs (a file's path resolved
    * against the table root, `toUri.toString`, as `_metadata.file_path` gives it); `only` names the
    * files of all groups by their add paths (a DataFrame with `path`). A file of a group that is
    * not live in the snapshot is an error (IllegalStateException): a group never silently reads
    * fewer files than it names.
    */
  def relations(
      snapshot: Snapshot,
      only: DataFrame,
      groups: Seq[Seq[String]]
  ): Seq[HadoopFsRelation] = {
    val table = ScanTable(snapshot)
    val selected = new SnapshotFileIndex(snapshot, table, Some(only)).listFiles(Nil, Nil)
    // each selected file by its URI, with its directory's index: one pass over the selection
    val byUri = selected.zipWithIndex.flatMap { case (d, i) =>
      d.files.map(f => f.getPath.toUri.toString -> (i, f))
    }.toMap
    val format = new TableParquetFormat(table)
    groups.map { group =>
      val names = group.distinct
      val hits = names.flatMap(byUri.get)
      if (hits.size != names.size) {
        val missing = names.filterNot(byUri.contains)
        throw new IllegalStateException(
          s"${missing.size} of the ${names.size} files of a group are not live in " +
            s"${snapshot.tablePath} v${snapshot.version}, e.g. ${missing.head}"
        )
      }
      val dirs = hits.groupBy(_._1).toSeq.sortBy(_._1).map { case (i, files) =>
        PartitionDirectory(selected(i).values, files.map(_._2))
      }
      HadoopFsRelation(
        location = new FixedFileIndex(snapshot.tablePath, table.partitionSchema, dirs),
        partitionSchema = table.partitionSchema,
        dataSchema = table.dataSchema,
        bucketSpec = None,
        fileFormat = format,
        options = Map.empty
      )(snapshot.spark)
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
