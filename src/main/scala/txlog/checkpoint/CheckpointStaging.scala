package txlog.checkpoint

import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types.StructType

import txlog.errors.TxlogErrors
import txlog.log.TablePath

/** Checkpoint files written by executors into a hidden staging directory of `_delta_log`
  * (`.txlog-staging-<uuid>`: readers list `_delta_log` without descending, so nothing there is ever
  * read as part of the log), read back to be verified, then moved into place.
  */
private[txlog] object CheckpointStaging {
  private val PartFile = """^part-(\d+)-.*\.(parquet|json|txt)$""".r

  /** Parquet writer settings for checkpoint columns: paths and JSON stats are (nearly) unique per
    * row, so a dictionary for them only costs time before the writer gives up on it; the few
    * repeated values (partition values, nulls) keep theirs. No reader filters on the JSON stats'
    * minimum and maximum, and no reader of the log uses parquet's size statistics (per-value byte
    * counts, parquet 1.15 and later; together about a tenth of W3's write, profiled), so neither is
    * kept. The paths keep their statistics: their null counts prove the action counts
    * ([[ParquetFooters]]).
    */
  private val ParquetOptions: Map[String, String] =
    Seq("add.path", "add.stats", "remove.path", "sidecar.path")
      .map(c => s"parquet.enable.dictionary#$c" -> "false")
      .toMap ++ Map(
      "parquet.column.statistics.enabled#add.stats" -> "false",
      "parquet.size.statistics.enabled" -> "false"
    )

  /** The options of a parquet checkpoint file's writer: [[ParquetOptions]], snappy. */
  val ParquetWriteOptions: Map[String, String] = ParquetOptions + ("compression" -> "snappy")

  /** A written file and the index of the Spark partition that wrote it. */
  final case class Staged(status: FileStatus, partition: Int)

  /** Writes `df` as `format` files into `dir` (one per non-empty partition) and lists them. Local
    * tables are written without Hadoop's `.crc` side files. A job that fails writing into `dir`
    * (the storage refused a file: permissions, space, an outage) is LOG_WRITE_FAILED, retryable;
    * nothing was published. Other failures (reading the log) pass as they are.
    */
  def write(table: TablePath, df: DataFrame, dir: Path, format: String): Seq[Staged] = {
    try {
      df.write
        .options(table.readOptions)
        .options(if (format == "parquet") ParquetOptions else Map.empty[String, String])
        .option("maxRecordsPerFile", "0")
        .option("compression", if (format == "parquet") "snappy" else "none")
        .format(format)
        .save(dir.toString)
    } catch {
      case e: Exception if writingFailed(e, dir) =>
        val cause = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).toSeq.last
        throw TxlogErrors.writeFailed(dir.toString, s"Writing the staged files failed: $cause", e)
    }
    list(table, dir)
  }

  /** Whether `e` is a failure to write under `dir`: a storage error naming a path there, and not
    * one of txlog's own (read) errors.
    */
  private def writingFailed(e: Throwable, dir: Path): Boolean = {
    val chain = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(20).toSeq
    val under = dir.toUri.getPath
    !chain.exists(_.isInstanceOf[txlog.TxlogException]) &&
    chain.exists(t => Option(t.getMessage).exists(_.contains(under)))
  }

  def list(table: TablePath, dir: Path): Seq[Staged] =
    table.fs
      .listStatus(dir)
      .toSeq
      .flatMap { s =>
        s.getPath.getName match {
          case PartFile(i, _) => Some(Staged(s, i.toInt))
          case _              => None
        }
      }
      .sortBy(_.partition)

  /** Counts the actions in written checkpoint files with one Spark job. */
  def counts(
      spark: SparkSession,
      table: TablePath,
      files: Seq[Path],
      format: String
  ): ActionCounts = {
    if (files.isEmpty) return ActionCounts.zero
    val schema = new StructType()
      .add("add", new StructType().add("path", "string"))
      .add("remove", new StructType().add("path", "string"))
      .add("metaData", new StructType().add("id", "string"))
      .add("protocol", new StructType().add("minReaderVersion", "int"))
      .add("txn", new StructType().add("appId", "string"))
      .add("domainMetadata", new StructType().add("domain", "string"))
      .add("checkpointMetadata", new StructType().add("version", "long"))
      .add("sidecar", new StructType().add("path", "string"))
    val df = spark.read
      .options(table.readOptions)
      .schema(schema)
      .format(format)
      .load(files.map(_.toString): _*)
    val leaves = ParquetFooters.Leaves
    val r = df.agg(count(lit(1)), leaves.map(l => count(col(l))): _*).head()
    val c = (1 to leaves.size).map(r.getLong)
    ActionCounts(c(0), c(1), c(2), c(3), c(4), c(5), c(6), c(7))
  }

}
