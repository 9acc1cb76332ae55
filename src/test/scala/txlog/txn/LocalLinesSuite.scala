package txlog.txn

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.catalyst.plans.logical.LocalRelation

import txlog.{DeltaLog, SparkSuite}
import txlog.protocol.ActionSchemas

/** A small commit's add lines computed on the driver ([[LocalLines]]) are the rows the DataFrame
  * path gives for the same adds, problems included, on a plain table and on a column-mapped one
  * with deletion vectors off; and a commit of local adds plans no query for them (the same table
  * state and commit file as delta-spark reads them is what ActionEntriesSuite checks).
  */
class LocalLinesSuite extends SparkSuite {

  private def adds(rows: Row*): DataFrame = {
    val df = spark.createDataFrame(java.util.Arrays.asList(rows: _*), ActionSchemas.add)
    assert(df.queryExecution.analyzed.isInstanceOf[LocalRelation])
    df
  }

  private def add(
      path: String,
      pv: Map[String, String],
      size: java.lang.Long = 10L,
      stats: String = null,
      dv: Row = null
  ): Row =
    Row(path, pv, size, 1700000000000L, true, stats, null, dv, null, null, null)

  private def same(df: DataFrame, log: DeltaLog, restoring: Boolean = false): Seq[Row] = {
    val s = log.snapshot()
    val local = LocalLines.adds(df, s.metadata, s.protocol, restoring)
    val viaSpark = FileActionLines.adds(df, s.metadata, s.protocol, restoring).collect().toSeq
    assert(local.isDefined, "the projection compiles")
    assert(local.get.map(_.toSeq) === viaSpark.map(_.toSeq))
    viaSpark
  }

  test("the lines and problems of local adds are the DataFrame path's") {
    val schema = org.apache.spark.sql.types.StructType.fromDDL("id BIGINT, d STRING")
    val plain = DeltaLog.createTable(
      spark,
      tempDir("local-lines").resolve("t").toString,
      schema,
      Seq("d"),
      Map.empty
    )
    val dv = Row("u", "ab^-aqEH.-t@S}K{vb[*k^", 1, 36, 2L, null)
    val rows = same(
      adds(
        add("d=a/f.parquet", Map("d" -> "a"), stats = """{"numRecords":3}"""),
        add("d=b/g.parquet", Map("x" -> "b")), // keyed by another column
        add("d=c/h.parquet", Map("d" -> "c"), size = null), // no size
        add("d=e/i.parquet", Map("d" -> "e"), stats = """{"numRecords":1}""", dv = dv),
        // stats of a column the table lacks: kept as written without column mapping
        add("d=f/j.parquet", Map("d" -> "f"), stats = """{"numRecords":1,"minValues":{"z":1}}""")
      ),
      plain
    )
    val problems = rows.map(r => Option(r.getAs[String]("problem")).isDefined)
    assert(problems === Seq(false, true, true, true, false))
    // under column mapping: partition values keyed by physical name, logical ones renamed
    val mapped = DeltaLog.createTable(
      spark,
      tempDir("local-lines-cm").resolve("t").toString,
      schema,
      Seq("d"),
      Map("delta.columnMapping.mode" -> "name")
    )
    val renamed = same(adds(add("a.parquet", Map("d" -> "a"))), mapped)
    assert(!renamed.head.getAs[String]("line").contains("\"d\":"), renamed.head)
    assert(renamed.head.getAs[String]("problem") === null)
    same(adds(add("a.parquet", Map("d" -> "a"), dv = dv)), mapped, restoring = true)
  }

  test("adds that are not rows on the driver take the DataFrame path") {
    val dir = tempDir("local-lines-rdd").resolve("t").toString
    val schema = org.apache.spark.sql.types.StructType.fromDDL("id BIGINT")
    val log = DeltaLog.createTable(spark, dir, schema, Nil, Map.empty)
    val rdd = spark.sparkContext.parallelize(Seq(add("f.parquet", Map.empty)), 1)
    val df = spark.createDataFrame(rdd, ActionSchemas.add)
    val s = log.snapshot()
    assert(LocalLines.adds(df, s.metadata, s.protocol, restoring = false) === None)
  }
}
