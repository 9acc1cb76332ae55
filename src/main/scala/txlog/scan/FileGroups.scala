package txlog.scan

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.catalyst.{FileSourceOptions, InternalRow}
import org.apache.spark.sql.execution.datasources.{FileFormat, FilePartition, FileScanRDD}
import org.apache.spark.sql.types.{LongType, StructField, StructType}

import txlog.Snapshot
import txlog.deletionvectors.DvDescriptor
import txlog.errors.TxlogErrors

/** The rows of some of a snapshot's files, one RDD partition per group of them (OPTIMIZE's bins),
  * deletion vectors applied: the files selected by one Spark job (as a scan of them all would
  * select them), then every group read by one task through the table's parquet reader
  * ([[TableParquetFormat]], built once). A group then needs no shuffle to come together, and no
  * query is planned per group (100 bins' plans took about 4 s).
  *
  * {{{
  * val (rows, schema) = FileGroups.rows(snapshot, paths, Seq(Seq(uriA, uriB), Seq(uriC)))
  * }}}
  */
private[txlog] object FileGroups {

  /** Partition `i` of the RDD holds the rows of the files of `groups(i)`, each group a list of file
    * URIs (a file's path resolved against the table root, `toUri.toString`, as
    * `_metadata.file_path` gives it); `only` names the files of all groups by their add paths (a
    * DataFrame with `path`). Rows hold the table's data columns (logical names, in schema order,
    * without the partition columns) then its partition columns, as the returned schema says. A file
    * of a group that is not live in the snapshot is INVALID_COMMIT_ACTIONS before any is read: a
    * group never silently reads fewer files than it names.
    *
    * `vectors` gives some files (by URI) the deletion vector to read them with in place of their
    * own (which it must include: a copy-on-write DML's vectors, the old one merged in); the files
    * are then read as on a table with deletion vectors even if this one has none.
    *
    * With `rowIds` (a table with row tracking enabled) each row also has its row id and row commit
    * version (`_metadata.row_id`, `row_commit_version`: the materialized values, else the file's
    * base row id plus the row's index and its default commit version) after the data columns, for a
    * rewrite to keep them ("Row Tracking": rows copied into new files keep both).
    */
  def rows(
      snapshot: Snapshot,
      only: DataFrame,
      groups: Seq[Seq[String]],
      vectors: Map[String, DvDescriptor] = Map.empty,
      rowIds: Boolean = false
  ): (RDD[InternalRow], StructType) = {
    val spark = snapshot.spark
    val spec = ReadSpec(snapshot)
    val table = if (vectors.isEmpty) spec else spec.copy(deletionVectors = true)
    val selected = new SnapshotFileIndex(snapshot, table, Some(only)).listFiles(Nil, Nil)
    // each selected file by its URI, as Spark's scan would plan it: one pass over the selection
    val byUri = selected.flatMap { d =>
      d.files.map { f =>
        val uri = f.getPath.toUri.toString
        val meta = vectors.get(uri).fold(f.metadata)(dv => f.metadata + (ScanFiles.DvKey -> dv))
        uri -> ScanFiles.split(d.values, f, meta)
      }
    }.toMap
    val partitions = groups.zipWithIndex.map { case (group, i) =>
      val names = group.distinct
      val missing = names.filterNot(byUri.contains)
      if (missing.nonEmpty) {
        throw TxlogErrors.invalidCommitActions(
          snapshot.tablePath,
          s"${missing.size} of the ${names.size} files of a group to rewrite are not live in " +
            s"version ${snapshot.version}, e.g. ${missing.head}"
        )
      }
      FilePartition(i, names.map(byUri).toArray)
    }
    val partitionNames = table.partitionSchema.fieldNames.toSet
    val data = StructType(table.dataSchema.fields.filterNot(f => partitionNames(f.name)))
    val tracking =
      if (!rowIds) Nil
      else {
        Seq(RowTrackingRead.RowIdColumn, RowTrackingRead.RowCommitVersionColumn)
          .map(StructField(_, LongType, nullable = false))
      }
    val required = StructType(data.fields ++ tracking)
    // rows one at a time, as the writer takes them (no batches handed on)
    val options = Map(FileFormat.OPTION_RETURNING_BATCH -> "false")
    val read = new TableParquetFormat(table).buildReaderWithPartitionValues(
      spark,
      data,
      table.partitionSchema,
      required,
      Nil,
      options,
      spark.sessionState.newHadoopConfWithOptions(options)
    )
    val schema = StructType(required.fields ++ table.partitionSchema.fields)
    val rdd = new FileScanRDD(
      spark,
      read,
      partitions,
      schema,
      Nil,
      Map.empty,
      new FileSourceOptions(Map.empty[String, String])
    )
    (rdd, schema)
  }
}
