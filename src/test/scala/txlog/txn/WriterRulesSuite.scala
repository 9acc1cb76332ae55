package txlog.txn

import org.apache.spark.sql.delta.{DeltaLog => RefLog}
import org.apache.spark.sql.types._

import txlog.{Metadata, Protocol, SparkSuite, TxlogException}
import txlog.protocol.TableFeatures

/** The protocol and metadata txlog gives a new table are the ones delta-spark gives the same CREATE
  * TABLE; commit-time refusals follow the spec's rules.
  */
class WriterRulesSuite extends SparkSuite {

  private val Columns = "id BIGINT, name STRING, d DATE"
  private val schema = StructType.fromDDL(Columns)

  /** delta-spark's protocol and stored configuration for a table created with `props`. */
  private def reference(
      props: Map[String, String],
      columns: String = Columns
  ): (Protocol, Map[String, String]) = {
    val dir = tempDir("ref").resolve("t").toString
    val tblProps =
      if (props.isEmpty) ""
      else props.map { case (k, v) => s"'$k' = '$v'" }.mkString(" TBLPROPERTIES (", ", ", ")")
    spark.sql(s"CREATE TABLE delta.`$dir` ($columns) USING delta$tblProps")
    RefLog.clearCache()
    val snap = RefLog.forTable(spark, dir).update()
    val p = snap.protocol
    (
      Protocol(
        p.minReaderVersion,
        p.minWriterVersion,
        p.readerFeatures.map(_.toSet),
        p.writerFeatures.map(_.toSet)
      ),
      snap.metadata.configuration
    )
  }

  private def ours(
      props: Map[String, String],
      s: StructType = schema
  ): (Protocol, Metadata) = WriterRules.newTable(s, Nil, props, 1L)

  private val matrix: Seq[Map[String, String]] = Seq(
    Map.empty,
    Map("delta.appendOnly" -> "true"),
    Map("delta.enableChangeDataFeed" -> "true"),
    Map("delta.columnMapping.mode" -> "name"),
    Map("delta.columnMapping.mode" -> "id"),
    Map("delta.enableDeletionVectors" -> "true"),
    Map("delta.enableInCommitTimestamps" -> "true"),
    Map("delta.enableRowTracking" -> "true"),
    Map("delta.checkpointPolicy" -> "v2"),
    Map("delta.minReaderVersion" -> "1", "delta.minWriterVersion" -> "4")
  )

  matrix.foreach { props =>
    test(
      s"a new table with ${if (props.isEmpty) "no properties" else props.mkString(", ")} " +
        "gets delta-spark's protocol"
    ) {
      val (refProtocol, refConf) = reference(props)
      val (p, md) = ours(props)
      // Supported features are what matters to readers and writers; delta-spark may list
      // the legacy features it implies in a different but equivalent way.
      assert(
        (p.minReaderVersion, p.minWriterVersion) ===
          (refProtocol.minReaderVersion, refProtocol.minWriterVersion)
      )
      assert(
        TableFeatures.supported(p) === TableFeatures.supported(refProtocol),
        s"ours $p, delta-spark's $refProtocol"
      )
      assert(
        p.readerFeatures.getOrElse(Set.empty) === refProtocol.readerFeatures.getOrElse(Set.empty)
      )
      // Stored configuration: the same keys (values of generated names differ).
      assert(md.configuration.keySet === refConf.keySet, s"ours ${md.configuration}")
    }
  }

  test("a TIMESTAMP_NTZ column needs the timestampNtz feature, as in delta-spark") {
    val (refProtocol, _) = reference(Map.empty, "id BIGINT, t TIMESTAMP_NTZ")
    val (p, _) = ours(Map.empty, StructType.fromDDL("id BIGINT, t TIMESTAMP_NTZ"))
    assert(TableFeatures.supported(p) === TableFeatures.supported(refProtocol))
    assert(p.readerFeatures === refProtocol.readerFeatures.map(_.toSet))
  }

  test("column mapping gives every field an id and a physical name, as delta-spark does") {
    val nested = "id BIGINT, s STRUCT<a: INT, b: STRING>"
    val dir = tempDir("ref").resolve("t").toString
    spark.sql(
      s"CREATE TABLE delta.`$dir` ($nested) USING delta " +
        "TBLPROPERTIES ('delta.columnMapping.mode' = 'name')"
    )
    RefLog.clearCache()
    val ref = RefLog.forTable(spark, dir).update().metadata
    val (_, md) = ours(Map("delta.columnMapping.mode" -> "name"), StructType.fromDDL(nested))
    def annotations(t: DataType): Seq[(String, Set[String])] = t match {
      case s: StructType =>
        s.fields.toSeq.flatMap(f =>
          (f.name, f.metadata.json.split("\"").filter(_.startsWith("delta.")).toSet) +:
            annotations(f.dataType)
        )
      case _ => Nil
    }
    assert(annotations(md.schema) === annotations(ref.schema))
    assert(
      md.configuration("delta.columnMapping.maxColumnId") ===
        ref.configuration("delta.columnMapping.maxColumnId")
    )
    val physical = md.schema.fields.map(_.metadata.getString("delta.columnMapping.physicalName"))
    assert(physical.forall(_.startsWith("col-")) && physical.distinct.length == physical.length)
  }

  private def failure(body: => Any): TxlogException = intercept[TxlogException](body)

  test("commits refuse an unsupported writer feature, a downgrade and metadata without schema") {
    val (p, md) = ours(Map.empty)
    val current = Some((p, md))
    val unknown = Protocol(1, 7, None, Some(Set("appendOnly", "invariants", "icebergCompatV1")))
    assert(
      failure(WriterRules.prepare("t", 1, current, Some(unknown), None)).errorClass ===
        "UNSUPPORTED_WRITER_FEATURES"
    )
    val lower = Protocol(1, 1, None, None) // spec: writer version 2 implies appendOnly/invariants
    assert(
      failure(WriterRules.prepare("t", 1, current, Some(lower), None)).errorClass ===
        "PROTOCOL_DOWNGRADE"
    )
    assert(
      failure(
        WriterRules.prepare("t", 1, current, None, Some(md.copy(schemaString = null)))
      ).errorClass === "INVALID_METADATA"
    )
    val repartitioned = md.copy(partitionColumns = Seq("d"))
    assert(
      failure(WriterRules.prepare("t", 1, current, None, Some(repartitioned))).errorClass ===
        "INVALID_METADATA"
    )
  }

  test("enabling change data feed by a property upgrades the protocol as delta-spark does") {
    val dir = tempDir("ref").resolve("t").toString
    spark.sql(s"CREATE TABLE delta.`$dir` ($Columns) USING delta")
    spark.sql(s"ALTER TABLE delta.`$dir` SET TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')")
    RefLog.clearCache()
    val ref = RefLog.forTable(spark, dir).update().protocol
    val (p, md) = ours(Map.empty)
    val cdf = md.copy(configuration = Map("delta.enableChangeDataFeed" -> "true"))
    val (newP, _) = WriterRules.prepare("t", 1, Some((p, md)), None, Some(cdf))
    assert(newP.isDefined)
    assert(
      (newP.get.minReaderVersion, newP.get.minWriterVersion) ===
        (ref.minReaderVersion, ref.minWriterVersion)
    )
    assert(
      TableFeatures.supported(newP.get) === TableFeatures.supported(
        Protocol(
          ref.minReaderVersion,
          ref.minWriterVersion,
          ref.readerFeatures.map(_.toSet),
          ref.writerFeatures.map(_.toSet)
        )
      )
    )
  }

  test("a legacy writer version 4 table without generated columns accepts commits") {
    // Spec: writer version 4 implies generatedColumns; its rules bind only columns that have a
    // generation expression.
    val (_, md) = ours(Map.empty)
    val legacy = Protocol(1, 4, None, None)
    assert(WriterRules.prepare("t", 1, Some((legacy, md)), None, Some(md))._1 === None)
    val generated = StructType(
      md.schema.fields :+ StructField(
        "g",
        LongType,
        metadata = new MetadataBuilder().putString("delta.generationExpression", "id + 1").build()
      )
    )
    assert(
      failure(
        WriterRules.prepare(
          "t",
          1,
          Some((legacy, md)),
          None,
          Some(md.copy(schemaString = generated.json))
        )
      ).errorClass === "UNSUPPORTED_WRITER_FEATURES"
    )
  }

  test("a column added under column mapping gets the next id; maxColumnId follows") {
    val (p, md) = ours(Map("delta.columnMapping.mode" -> "name"))
    val added = StructType(md.schema.fields :+ StructField("extra", IntegerType))
    val (_, newMd) =
      WriterRules.prepare("t", 1, Some((p, md)), None, Some(md.copy(schemaString = added.json)))
    val f = newMd.get.schema("extra")
    assert(f.metadata.getLong("delta.columnMapping.id") === 4L) // ids 1-3 were given at creation
    assert(newMd.get.configuration("delta.columnMapping.maxColumnId") === "4")
  }

  test("without column mapping a column cannot be dropped") {
    val (p, md) = ours(Map.empty)
    val dropped = StructType(md.schema.fields.take(2))
    assert(
      failure(
        WriterRules.prepare("t", 1, Some((p, md)), None, Some(md.copy(schemaString = dropped.json)))
      ).errorClass === "INVALID_METADATA"
    )
  }
}
