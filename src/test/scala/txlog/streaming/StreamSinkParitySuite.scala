package txlog.streaming

import java.io.File
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.streaming.Trigger

import txlog.{ErrorClasses, SparkSuite}
import txlog.scan.Rows
import txlog.streaming.StreamRuns.txlogError

/** txlog's streaming sink against delta-spark's on the same input (a stream of a delta-spark
  * table): the same rows, one commit per batch with delta-spark's operation and parameters, a `txn`
  * of the query's id and the batch's, a batch run again after a restart not written twice, Complete
  * mode, schema evolution by mergeSchema, and streams by table name.
  */
class StreamSinkParitySuite extends SparkSuite {

  override def extraConf: Map[String, String] =
    Map("spark.sql.catalog.txlog" -> classOf[txlog.sql.TxlogCatalog].getName)

  private def input(name: String, commits: Int): String = {
    val path = tempDir(name).resolve("in").toString
    (0 until commits).foreach(i => append(path, i * 10L, i * 10L + 10))
    path
  }

  private def append(path: String, from: Long, until: Long): Unit =
    spark
      .range(from, until)
      .selectExpr("id", "cast(id % 3 as string) AS p")
      .repartition(1)
      .write
      .format("delta")
      .mode("append")
      .save(path)

  /** Streams `in` (a delta-spark table, a file per batch) through `shape` into a `format` sink at
    * `out`, to the end with Trigger.AvailableNow; the query's id.
    */
  private def write(
      in: String,
      format: String,
      out: String,
      checkpoint: String,
      mode: String = "append",
      options: Map[String, String] = Map.empty,
      shape: DataFrame => DataFrame = identity
  ): String = {
    val q =
      shape(spark.readStream.format("delta").option("maxFilesPerTrigger", 1).load(in)).writeStream
        .format(format)
        .outputMode(mode)
        .options(options)
        .option("checkpointLocation", checkpoint)
        .trigger(Trigger.AvailableNow())
        .start(out)
    q.awaitTermination()
    q.id.toString
  }

  private def rows(path: String): Seq[String] = Rows.sorted(spark.read.format("delta").load(path))

  private def history(path: String): Seq[Row] =
    spark.sql(s"DESCRIBE HISTORY delta.`$path`").collect().toSeq.sortBy(_.getAs[Long]("version"))

  /** Each commit's operation, its parameters (the query id as `q`) and its metrics' names. */
  private def commits(path: String, queryId: String): Seq[String] = history(path).map { r =>
    val params = r.getAs[scala.collection.Map[String, String]]("operationParameters")
    val metrics = r.getAs[scala.collection.Map[String, String]]("operationMetrics")
    val shown = params.toSeq.sorted.map { case (k, v) => s"$k=${v.replace(queryId, "q")}" }
    s"${r.getAs[String]("operation")} ${shown.mkString(",")} ${metrics.keys.toSeq.sorted}"
  }

  /** The `txn` actions of the table's log, as (appId, version), in commit order. */
  private def txns(path: String): Seq[(String, Long)] = {
    val log = new File(path, "_delta_log")
    log.listFiles().filter(_.getName.endsWith(".json")).sortBy(_.getName).toSeq.flatMap { f =>
      Files.readAllLines(f.toPath).asScala.filter(_.contains("\"txn\"")).map { line =>
        val txn = new com.fasterxml.jackson.databind.ObjectMapper().readTree(line).get("txn")
        txn.get("appId").asText -> txn.get("version").asLong
      }
    }
  }

  test("append: a commit per batch as delta-spark's, with the query's txn, none written twice") {
    val in = input("append", 3)
    val dir = tempDir("append-out")
    val Seq(d, t) = Seq("d", "t").map(dir.resolve(_).toString)
    val Seq(dc, tc) = Seq("dc", "tc").map(dir.resolve(_).toString)
    val dq = write(in, "delta", d, dc)
    val tq = write(in, "txlog", t, tc)
    assert(rows(t) == rows(d) && rows(t).size == 30)
    assert(commits(t, tq) == commits(d, dq))
    assert(commits(t, tq).head.startsWith("STREAMING UPDATE epochId=0,outputMode=Append,queryId=q"))
    assert(txns(t) == Seq(0L, 1L, 2L).map(tq -> _) && txns(d).map(_._2) == Seq(0L, 1L, 2L))
    // more input, the same queries: the batches go on
    append(in, 30, 40)
    write(in, "delta", d, dc)
    write(in, "txlog", t, tc)
    assert(rows(t) == rows(d) && rows(t).size == 40)
    assert(txns(t).map(_._2) == Seq(0L, 1L, 2L, 3L))
    // the last batch committed to the table but not to the checkpoint: run again, not written
    for (c <- Seq(dc, tc)) {
      assert(new File(s"$c/commits/3").delete())
      new File(s"$c/commits/.3.crc").delete()
    }
    val before = (history(d).size, history(t).size)
    write(in, "delta", d, dc)
    write(in, "txlog", t, tc)
    assert((history(d).size, history(t).size) == before)
    assert(rows(t) == rows(d) && rows(t).size == 40)
    // the table txlog's sink wrote, streamed by delta-spark and by txlog: the same batches
    val streams = dir.resolve("streams")
    val read = Seq("delta", "txlog").map { f =>
      StreamRuns.drain(spark, f, t, streams.resolve(f).toString, Map("maxFilesPerTrigger" -> "1"))
    }
    assert(read.head.isRight && read.head == read(1) && read.head.toOption.get.size == 4)
  }

  test("complete mode replaces the table each batch; update mode is refused as delta-spark's") {
    val in = input("complete", 3)
    val dir = tempDir("complete-out")
    val counts = (df: DataFrame) => df.groupBy("p").count()
    val Seq(d, t) = Seq("d", "t").map(dir.resolve(_).toString)
    val dq = write(in, "delta", d, dir.resolve("dc").toString, "complete", shape = counts)
    val tq = write(in, "txlog", t, dir.resolve("tc").toString, "complete", shape = counts)
    assert(rows(t) == rows(d) && rows(t) == Seq("{0, 10}", "{1, 10}", "{2, 10}"))
    assert(commits(t, tq) == commits(d, dq))
    val Seq(deltaUpdate, update) = Seq("delta", "txlog").map { f =>
      val (out, chk) = (dir.resolve(s"$f-u").toString, dir.resolve(s"$f-uc").toString)
      intercept[Throwable](write(in, f, out, chk, "update", shape = counts))
    }
    assert(deltaUpdate != null)
    assert(txlogError(update).map(_.errorClass).contains(ErrorClasses.InvalidArgument), update)
  }

  test("mergeSchema adds the stream's new columns; without it the batch fails, nothing written") {
    val in = input("evolve", 1)
    val dir = tempDir("evolve-out")
    val Seq(d, t) = Seq("d", "t").map(dir.resolve(_).toString)
    for (out <- Seq(d, t)) {
      spark.range(0, 2).selectExpr("id", "'x' AS p").write.format("delta").save(out)
    }
    val wider = (df: DataFrame) => df.selectExpr("id", "p", "id * 2 AS twice")
    val refused = intercept[Throwable](
      write(in, "txlog", t, dir.resolve("tc0").toString, shape = wider)
    )
    assert(txlogError(refused).map(_.errorClass).contains(ErrorClasses.SchemaMismatch), refused)
    intercept[Throwable](write(in, "delta", d, dir.resolve("dc0").toString, shape = wider))
    assert(history(t).size == 1 && history(d).size == 1)
    val merge = Map("mergeSchema" -> "true")
    write(in, "delta", d, dir.resolve("dc").toString, options = merge, shape = wider)
    write(in, "txlog", t, dir.resolve("tc").toString, options = merge, shape = wider)
    assert(rows(t) == rows(d) && rows(t).size == 12)
    assert(spark.read.format("delta").load(t).columns.toSeq == Seq("id", "p", "twice"))
  }

  test("streams by table name: readStream.table and toTable through txlog's catalog") {
    val dir = tempDir("named")
    spark.sql(s"CREATE DATABASE IF NOT EXISTS txlog.streams LOCATION '${dir.resolve("db")}'")
    spark.sql("CREATE TABLE txlog.streams.src (id BIGINT, p STRING) USING txlog")
    spark.sql("CREATE TABLE txlog.streams.dst (id BIGINT, p STRING) USING txlog PARTITIONED BY (p)")
    spark.sql("INSERT INTO txlog.streams.src VALUES (1, 'a'), (2, 'b')")
    spark.sql("INSERT INTO txlog.streams.src VALUES (3, 'a')")
    // src by name with `options`, drained with AvailableNow into `format`, by name or unnamed
    def named(options: Map[String, String], chk: String, format: String, table: Option[String]) = {
      val w = spark.readStream
        .options(options)
        .table("txlog.streams.src")
        .writeStream
        .format(format)
        .option("checkpointLocation", dir.resolve(chk).toString)
        .trigger(Trigger.AvailableNow())
      val q = table.fold(w.start())(w.toTable)
      q.awaitTermination()
      q
    }
    val q = named(Map("maxFilesPerTrigger" -> "1"), "chk", "txlog", Some("txlog.streams.dst"))
    val read = Rows.sorted(spark.table("txlog.streams.dst"))
    assert(read == Seq("{1, a}", "{2, b}", "{3, a}"))
    // the stream by name takes the stream's options: one file a batch (delta-spark's file count)
    val location = dir.resolve("db").resolve("src").toString
    val files = spark.read.format("delta").load(location).inputFiles.length
    assert(files > 1 && q.recentProgress.count(_.numInputRows > 0) == files)
    assert(q.recentProgress.last.sources.head.description.startsWith("TxlogSource["))
    val cdf = intercept[Throwable](named(Map("readChangeFeed" -> "true"), "chk-cdf", "noop", None))
    assert(txlogError(cdf).map(_.errorClass).contains("INVALID_ARGUMENT"), cdf)
    assert(spark.sql("DESCRIBE HISTORY txlog.streams.dst").collect().exists { r =>
      r.getAs[String]("operation") == "STREAMING UPDATE"
    })
  }
}
