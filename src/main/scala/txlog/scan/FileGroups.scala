package txlog.scan

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.datasources.{HadoopFsRelation, PartitionDirectory}

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
      val bytes = dirs.map(_.files.map(_.getLen).sum).sum
      HadoopFsRelation(
        location = new FixedFileIndex(
          snapshot.tablePath,
          s"${names.size} files of v${snapshot.version}",
          table.partitionSchema,
          dirs,
          bytes
        ),
        partitionSchema = table.partitionSchema,
        dataSchema = table.dataSchema,
        bucketSpec = None,
        fileFormat = format,
        options = Map.empty
      )(snapshot.spark)
    }
  }
}
