package txlog.replay

import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.Row
import org.apache.spark.sql.types.StructType

import txlog.{Fixtures, SparkSuite}
import txlog.protocol.ActionSchemas
import txlog.log.TablePath

/** The driver's parquet reader ([[DriverParquet]]) must give, for every checkpoint and sidecar file
  * among the fixtures (written by delta-spark and other writers over the years), exactly the rows
  * Spark's own parquet reader gives for the same schema.
  */
class DriverParquetSuite extends SparkSuite {

  private lazy val files: Seq[Path] =
    if (!Fixtures.available) Nil
    else {
      val s = Files.walk(Fixtures.root)
      try
        s.iterator()
          .asScala
          .filter(p => p.toString.contains("/_delta_log/") && p.toString.endsWith(".parquet"))
          .toSeq
          .sortBy(_.toString)
      finally s.close()
    }

  private val schemas = Seq(
    "non-file actions and sidecars" ->
      ActionSchemas.nonFileActions.add("sidecar", ActionSchemas.sidecar),
    "lean file actions" -> ActionSchemas.leanFileActions,
    "full file actions" -> ActionSchemas.fileActions
  )

  /** Local files without Hadoop's `.crc` side files, which go stale in copied fixtures (as txlog
    * reads logs: see TablePath.readOptions).
    */
  private val raw = Map(
    "fs.file.impl" -> "org.apache.hadoop.fs.RawLocalFileSystem",
    "fs.file.impl.disable.cache" -> "true"
  )

  /** Rows as comparable values: nested rows as lists, maps and sequences as they are. */
  private def plain(v: Any): Any = v match {
    case r: Row                        => r.toSeq.map(plain).toList
    case m: scala.collection.Map[_, _] => m.map { case (k, x) => plain(k) -> plain(x) }.toMap
    case s: scala.collection.Seq[_]    => s.map(plain).toList
    case x                             => x
  }

  private def allNull(r: Row): Boolean = r.toSeq.forall(_ == null)

  test("fixture checkpoints and sidecars read on the driver as Spark reads them") {
    if (!Fixtures.available) cancel(Fixtures.skipMessage)
    assert(files.size >= 20, s"expected the fixtures' checkpoints, found ${files.size}")
    val conf = new Configuration()
    raw.foreach { case (k, v) => conf.set(k, v) }
    for (file <- files; (what, schema) <- schemas) {
      val expected = spark.read
        .options(raw)
        .schema(schema)
        .parquet(file.toString)
        .collect()
        .filterNot(allNull)
        .map(plain)
        .toSeq
      val ours = Seq.newBuilder[Any]
      val table = TablePath.qualified(file.getParent.toString, conf)
      DriverParquet.foreach(table, file.toString, schema) { r =>
        if (!allNull(r)) ours += plain(r)
      }
      withClue(s"$file, $what: ") {
        assert(ours.result().sortBy(_.toString) === expected.sortBy(_.toString))
      }
    }
  }

  test("a column of another type than asked for is not read on the driver") {
    val dir = tempDir()
    val file = dir.resolve("x.parquet").toString
    spark.range(3).selectExpr("named_struct('path', id) as add").write.parquet(file)
    val part = Files.list(Path.of(file)).iterator().asScala.find(_.toString.endsWith(".parquet"))
    val err = intercept[DriverParquet.Unsupported] {
      val table = TablePath.qualified(dir.toString, new Configuration())
      DriverParquet.foreach(table, part.get.toString, ActionSchemas.leanFileActions)(_ => ())
    }
    assert(err.getMessage.contains("path"))
  }

  test("row groups whose statistics show no state are read with the lean file columns alone") {
    val session = spark
    import session.implicits._
    val full =
      StructType(ActionSchemas.nonFileActions.fields ++ ActionSchemas.leanFileActions.fields)
    val state = """{"protocol":{"minReaderVersion":1,"minWriterVersion":2},""" +
      """"metaData":{"id":"m","format":{"provider":"parquet","options":{}},""" +
      """"schemaString":"{}","partitionColumns":[],"configuration":{}}}"""
    val files = (0 until 40).map(i => s"""{"add":{"path":"f$i","size":$i}}""") :+
      """{"remove":{"path":"g","deletionTimestamp":5}}"""
    val dir = tempDir()
    val out = dir.resolve("cp").toString
    // One row a row group: the state row's group, then groups of file actions alone.
    spark.read
      .schema(full)
      .json((state +: files).toDS())
      .coalesce(1)
      .write
      .option("parquet.block.size", "1")
      .option("parquet.page.size.row.check.min", "1")
      .option("parquet.page.size.row.check.max", "1")
      .option("parquet.block.row.count.limit", "1")
      .parquet(out)
    val part = Files.list(Path.of(out)).iterator().asScala.find(_.toString.endsWith(".parquet")).get
    val table = TablePath.qualified(dir.toString, new Configuration())
    val groups = {
      val r = DriverParquet.open(table, new org.apache.hadoop.fs.Path(part.toString))
      try r.getRowGroups.size
      finally r.close()
    }
    assert(groups > 2, "the file has row groups of file actions alone")
    def read(narrow: Boolean): Seq[Row] = {
      val rows = Seq.newBuilder[Row]
      val lean = Some(ActionSchemas.leanFileActions -> DriverCheckpoint.holdsNoState _)
      DriverParquet.foreach(table, part.toString, full, narrow = lean.filter(_ => narrow))(
        rows += _
      )
      rows.result()
    }
    val (whole, narrowed) = (read(narrow = false), read(narrow = true))
    assert(whole.map(_.length).distinct === Seq(full.length))
    assert(narrowed.size === whole.size)
    // the state row keeps every column; the file actions' rows come without the state columns
    assert(narrowed.count(_.length == full.length) === 1)
    assert(narrowed.head.getAs[Row]("metaData").getAs[String]("id") === "m")
    assert(narrowed.count(_.length == ActionSchemas.leanFileActions.length) === files.size)
    // the file actions as Spark's own parquet reader gives them, in the file's row order
    val actions = (r: Row) => Seq("add", "remove").map(c => plain(r.getAs[Row](c)))
    val bySpark = session.read.schema(ActionSchemas.leanFileActions).parquet(part.toString)
    val expected = bySpark.collect().toSeq.map(actions)
    assert(expected.count(_.head != null) === 40)
    assert(narrowed.map(actions) === expected)
    assert(whole.map(actions) === expected)
  }
}
