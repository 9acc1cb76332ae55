package txlog.txn

import java.nio.file.Path

import scala.util.Try

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.delta.{DeltaLog => RefLog, DeltaOperations}
import org.apache.spark.sql.types.{DataType, MetadataBuilder, StructField, StructType}

import txlog.{DeltaLog, SparkSuite, TxlogException}

/** Metadata a commit may not write, staged through txlog's transaction on a table delta-spark wrote
  * (writer version 7, table features), beside delta-spark committing the same schema through its
  * `OptimisticTransaction` on a copy where it has a rule:
  *   - columns whose rules txlog does not follow: generated, identity and default values (the spec:
  *     on writer version 7 their features must be listed; delta-spark's transaction has no rule and
  *     commits them without), variant (delta-spark adds variantType), collated strings; txlog
  *     refuses with UNSUPPORTED_WRITER_FEATURES naming the feature, where it used to commit them
  *     without it;
  *   - a column's type changed, or its nullability tightened: delta-spark commits, and then reads
  *     the old files wrongly (fails, or returns nulls in a non-null column); txlog refuses with
  *     INVALID_METADATA. A new column and loosened nullability still commit.
  */
class MetadataRulesSuite extends SparkSuite {

  private lazy val base: Path = {
    val t = tempDir("md-rules").resolve("t")
    spark.sql(
      s"CREATE TABLE delta.`$t` (id LONG NOT NULL, name STRING) USING delta " +
        "TBLPROPERTIES ('delta.feature.domainMetadata' = 'supported')"
    )
    spark.sql(s"INSERT INTO delta.`$t` VALUES (1, 'a'), (2, NULL)")
    t
  }

  private def copyOf(t: Path): Path = {
    val to = tempDir("md-rules").resolve("t")
    FileUtils.copyDirectory(t.toFile, to.toFile)
    to
  }

  private def errorClass(e: Throwable): String =
    """\[([A-Z_]+)\]""".r
      .findFirstMatchIn(String.valueOf(e.getMessage))
      .fold(e.toString)(_.group(1))

  /** delta-spark committing `schema` on a copy: the writer features it ends with, or its error
    * class; and the copy.
    */
  private def reference(schema: StructType): (Either[String, Set[String]], Path) = {
    val copy = copyOf(base)
    RefLog.clearCache()
    val log = RefLog.forTable(spark, copy.toString)
    val outcome = Try {
      val txn = log.startTransaction()
      txn.updateMetadata(txn.metadata.copy(schemaString = schema.json))
      txn.commit(Nil, DeltaOperations.ManualUpdate)
      RefLog.clearCache()
      RefLog.forTable(spark, copy.toString).update().protocol.writerFeatureNames
    }.toEither.left.map(errorClass)
    (outcome, copy)
  }

  /** txlog committing `schema` on a copy: "none" or the error (class and message); the version
    * stays 1 when refused.
    */
  private def ours(schema: StructType): (String, String) = {
    val log = DeltaLog.forTable(spark, copyOf(base).toString)
    val md = log.snapshot().metadata
    try {
      log.startTransaction().updateMetadata(md.copy(schemaString = schema.json)).commit("ALTER")
      ("none", "")
    } catch {
      case e: TxlogException =>
        assert(log.update().version === 1)
        (e.errorClass, e.getMessage)
    }
  }

  /** txlog refuses `schema` with `errorClass`, its message naming `text`. */
  private def refused(schema: StructType, errorClass: String, text: String): Unit = {
    val (txlog, message) = ours(schema)
    assert(txlog === errorClass)
    assert(message.contains(text), message)
  }

  /** delta-spark commits `schema` on a copy; the copy, its cache cleared. */
  private def committedByDeltaSpark(schema: StructType): Path = {
    val (delta, copy) = reference(schema)
    assert(delta.isRight, s"delta-spark: $delta")
    RefLog.clearCache()
    copy
  }

  private val current = StructType.fromDDL("id LONG NOT NULL, name STRING")
  private def meta(pairs: (String, Any)*) = {
    val b = new MetadataBuilder()
    pairs.foreach {
      case (k, v: String)  => b.putString(k, v)
      case (k, v: Long)    => b.putLong(k, v)
      case (k, v: Boolean) => b.putBoolean(k, v)
      case (k, v)          => throw new IllegalArgumentException(s"$k: $v")
    }
    b.build()
  }

  private val columns: Seq[(String, String, StructType)] = Seq(
    (
      "generatedColumns",
      "a generated column",
      current.add(
        StructField(
          "g",
          DataType.fromDDL("long"),
          metadata = meta(
            "delta.generationExpression" -> "id + 1"
          )
        )
      )
    ),
    (
      "identityColumns",
      "an identity column",
      current.add(
        StructField(
          "i",
          DataType.fromDDL("long"),
          nullable = false,
          metadata = meta(
            "delta.identity.start" -> 1L,
            "delta.identity.step" -> 1L,
            "delta.identity.allowExplicitInsert" -> false
          )
        )
      )
    ),
    (
      "allowColumnDefaults",
      "a default value on an existing column",
      StructType(current.fields.map { f =>
        if (f.name == "name") f.copy(metadata = meta("CURRENT_DEFAULT" -> "'x'")) else f
      })
    )
  )

  for ((feature, what, schema) <- columns) {
    test(s"$what: UNSUPPORTED_WRITER_FEATURES ($feature), not a commit without the feature") {
      refused(schema, "UNSUPPORTED_WRITER_FEATURES", feature)
    }
  }

  test("a variant column: UNSUPPORTED_WRITER_FEATURES (variantType)") {
    assume(spark.version.split('.').head.toInt >= 4, "Spark 3.5 has no variant type")
    val schema = DataType
      .fromJson(
        """{"type":"struct","fields":[{"name":"id","type":"long","nullable":false,
          |"metadata":{}},{"name":"name","type":"string","nullable":true,"metadata":{}},
          |{"name":"v","type":"variant","nullable":true,"metadata":{}}]}""".stripMargin
      )
      .asInstanceOf[StructType]
    val (delta, _) = reference(schema)
    assert(delta.exists(_.contains("variantType")), s"delta-spark: $delta")
    refused(schema, "UNSUPPORTED_WRITER_FEATURES", "variantType")
  }

  test("a collated string column: UNSUPPORTED_WRITER_FEATURES (collations)") {
    val schema = current.add(
      StructField(
        "c",
        DataType.fromDDL("string"),
        metadata = new MetadataBuilder()
          .putMetadata("__COLLATIONS", meta("c" -> "spark.UTF8_LCASE"))
          .build()
      )
    )
    refused(schema, "UNSUPPORTED_WRITER_FEATURES", "collations")
  }

  test("a column's type changed: delta-spark then cannot read the old file; INVALID_METADATA") {
    val schema = StructType.fromDDL("id STRING NOT NULL, name STRING")
    val copy = committedByDeltaSpark(schema)
    assert(Try(spark.read.format("delta").load(copy.toString).collect()).isFailure)
    refused(schema, "INVALID_METADATA", "column id would change type from BIGINT to STRING")
  }

  test("a nullable column made non-null: delta-spark then reads a null in it; INVALID_METADATA") {
    val schema = StructType.fromDDL("id LONG NOT NULL, name STRING NOT NULL")
    val copy = committedByDeltaSpark(schema)
    val read = spark.read.format("delta").load(copy.toString)
    assert(!read.schema("name").nullable)
    assert(read.select("name").collect().count(_.isNullAt(0)) === 1)
    refused(schema, "INVALID_METADATA", "name would become non-null")
  }

  test("a new column and a non-null column made nullable still commit, as in delta-spark") {
    val schema = StructType.fromDDL("id LONG, name STRING, extra INT")
    committedByDeltaSpark(schema)
    assert(ours(schema) === ("none", ""))
  }
}
