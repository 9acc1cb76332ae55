package txlog.replay

import org.apache.spark.sql.Row
import org.apache.spark.sql.functions.{col, from_json}
import org.apache.spark.sql.txlog.{LogLineJson, SparkExpressions}
import org.apache.spark.sql.types.{StringType, StructType}

import txlog.SparkSuite
import txlog.protocol.ActionSchemas

/** Log lines parsed from their bytes ([[LogLineJson]]) come out exactly as Spark's `from_json`
  * parses them (the oracle): the same values, nulls and `_corrupt_record`, in whole-stage code and
  * interpreted.
  */
class LogLineJsonSuite extends SparkSuite {
  override def extraConf: Map[String, String] =
    super.extraConf + (LogLineReader.LocalReadMaxBytesConf -> "0")

  private val lines = Seq(
    """{"add":{"path":"a.parquet","size":10,"modificationTime":1,"dataChange":true,""" +
      """"partitionValues":{"d":"2024-01-01"},"stats":"{\"numRecords\":3}"}}""",
    """{"remove":{"path":"b%20c.parquet","deletionTimestamp":5,"dataChange":false}}""",
    """{"protocol":{"minReaderVersion":3,"minWriterVersion":7,""" +
      """"readerFeatures":["deletionVectors"],"writerFeatures":["deletionVectors"]}}""",
    """{"metaData":{"id":"x","format":{"provider":"parquet","options":{}},"schemaString":"{}",""" +
      """"partitionColumns":[],"configuration":{"k":"v"},"createdTime":7}}""",
    """{"txn":{"appId":"app","version":3,"lastUpdated":9}}""",
    """{"commitInfo":{"inCommitTimestamp":12,"operation":"WRITE","unknown":{"deep":[1,2]}}}""",
    """{"add":{"path":"日本語/é.parquet","size":1,"partitionValues":{},"modificationTime":2,""" +
      """"dataChange":true}}""",
    """  {"txn":{"appId":"spaced","version":1}}  """,
    """{"add":{"path":"x","size":"big"}}""",
    """{"add":{"path":"x","size":1""",
    """not json at all""",
    """null""",
    """[]""",
    """{}""",
    """{"futureAction":{"a":1}}"""
  )

  /** The lines as a DataFrame of tasks (a local one would be folded when planned). */
  private def linesInTasks = spark.createDataFrame(
    spark.sparkContext.parallelize(lines.map(Row(_)), 2),
    new StructType().add("line", StringType)
  )

  private def both(schema: StructType): (Seq[String], Seq[String]) = {
    val withCorrupt = schema.add(LogActions.CorruptColumn, StringType)
    val options = Map("mode" -> "PERMISSIVE", "columnNameOfCorruptRecord" -> "_corrupt_record")
    val ours = SparkExpressions.column(
      LogLineJson(SparkExpressions.expression(col("line")), withCorrupt, "_corrupt_record", "UTC")
    )
    val rows = linesInTasks
      .select(from_json(col("line"), withCorrupt, options).as("a"), ours.as("b"))
      .collect()
    (rows.map(r => String.valueOf(r.get(0))).toSeq, rows.map(r => String.valueOf(r.get(1))).toSeq)
  }

  for (
    (name, schema) <- Seq(
      "commit lines" -> ActionSchemas.commitLine,
      "non-file state" -> ActionSchemas.stateLine,
      "lean file actions" -> ActionSchemas.leanFileActions,
      "file actions" -> ActionSchemas.fileActions
    )
  ) test(s"$name: the same rows as from_json, corrupt lines included") {
    val (expected, actual) = both(schema)
    assert(actual === expected)
    assert(expected.count(_.contains("not json at all")) === 1, expected)
  }

  test("interpreted (no whole-stage code) as in generated code") {
    val key = "spark.sql.codegen.wholeStage"
    val before = spark.conf.getOption(key)
    spark.conf.set(key, "false")
    try {
      val (expected, actual) = both(ActionSchemas.commitLine)
      assert(actual === expected)
    } finally before.fold(spark.conf.unset(key))(spark.conf.set(key, _))
  }

  test("the result type is from_json's") {
    val withCorrupt = ActionSchemas.stateLine.add(LogActions.CorruptColumn, StringType)
    val options = Map("mode" -> "PERMISSIVE", "columnNameOfCorruptRecord" -> "_corrupt_record")
    val df = spark.createDataFrame(lines.take(1).map(Tuple1(_))).toDF("line")
    val ours =
      LogLineJson(SparkExpressions.expression(col("line")), withCorrupt, "_corrupt_record", "UTC")
    assert(
      df.select(SparkExpressions.column(ours)).schema.head.dataType ===
        df.select(from_json(col("line"), withCorrupt, options)).schema.head.dataType
    )
  }

  test("a tail read by tasks is parsed once per line for the file state, not again in its filter") {
    val path = tempDir().resolve("t").toString
    (1 to 3).foreach(n => spark.range(n).write.format("delta").mode("append").save(path))
    val snap = txlog.DeltaLog.forTable(spark, path).snapshot()
    for (files <- Seq(snap.allFiles, snap.tombstones)) {
      val plan = files.queryExecution.optimizedPlan
      val parses = plan.collect { case p =>
        p.expressions.flatMap(_.collect { case j: LogLineJson => j })
      }
      assert(parses.flatten.size === 1, plan)
    }
  }
}
