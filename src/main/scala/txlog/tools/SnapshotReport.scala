package txlog.tools

import org.apache.spark.sql.SparkSession

import txlog.{DeltaLog, Snapshot, TxlogException}

/** A spark-submit job that prints a table's snapshot summary, its history and an older version:
  *
  * {{{
  * spark-submit --class txlog.tools.SnapshotReport txlog-spark_4.2_2.13-0.1.0.jar \
  *   /data/events [version]
  * }}}
  *
  * Exits with status 2 and the error's message when txlog refuses the table.
  */
object SnapshotReport {

  def main(args: Array[String]): Unit = {
    if (args.isEmpty || args.length > 2) {
      System.err.print("usage: SnapshotReport <table path> [time-travel version]\n")
      sys.exit(64)
    }
    val spark = SparkSession.builder().appName("txlog snapshot report").getOrCreate()
    try System.out.print(render(spark, args(0), args.lift(1).map(_.toLong)))
    catch {
      case e: TxlogException =>
        System.err.print(s"${e.getMessage}\n")
        sys.exit(2)
    } finally spark.stop()
  }

  /** The report as text: latest snapshot, history, and `older` (default: latest - 1). */
  def render(spark: SparkSession, path: String, older: Option[Long]): String = {
    val log = DeltaLog.forTable(spark, path)
    val latest = log.snapshot()
    val sb = new StringBuilder
    sb ++= s"== Latest snapshot of ${latest.tablePath}\n" ++= summary(latest)
    sb ++= "\n== History (newest first)\n"
    sb ++= log
      .history()
      .select("version", "timestamp", "operation", "operationParameters")
      .limit(20)
      .showString()
    val back = older.getOrElse(math.max(latest.version - 1, 0L))
    sb ++= s"\n== Time travel to version $back\n" ++= summary(log.snapshot(back))
    val asOf = new java.sql.Timestamp(latest.timestamp)
    sb ++= s"\n== As of $asOf: version ${log.snapshotAsOf(asOf).version}\n"
    sb.toString
  }

  private def summary(s: Snapshot): String = {
    val p = s.protocol
    val m = s.metadata
    val features = (p.readerFeatures.getOrElse(Set.empty) ++ p.writerFeatures.getOrElse(Set.empty))
    val checkpoint = s.checkpointVersion.map(v => s"version $v").getOrElse("none")
    s"""version            ${s.version} (committed ${new java.sql.Timestamp(s.timestamp)})
       |checkpoint         $checkpoint
       |protocol           reader ${p.minReaderVersion}, writer ${p.minWriterVersion}""".stripMargin +
      (if (features.isEmpty) "" else s"; features ${features.toSeq.sorted.mkString(", ")}") +
      s"""
       |table id           ${m.id}
       |schema             ${m.schema.simpleString}
       |partition columns  ${m.partitionColumns.mkString(", ")}
       |files              ${s.numFiles} live, ${s.sizeInBytes} bytes; ${s.numTombstones} tombstones
       |""".stripMargin
  }

  private implicit class Show(df: org.apache.spark.sql.DataFrame) {
    def showString(): String = {
      val out = new java.io.ByteArrayOutputStream()
      Console.withOut(out)(df.show(20, truncate = 60))
      out.toString("UTF-8")
    }
  }
}
