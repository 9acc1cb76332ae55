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
}
