package txlog.txn

import org.apache.spark.sql.delta.RefVersions
import org.apache.spark.sql.delta.{DeltaLog => RefLog}
import org.apache.spark.sql.types._

import txlog.{SparkSuite, TxlogException}

/** Renaming and dropping columns under column mapping, committed by txlog on a copy of a
  * delta-spark table, give the schema delta-spark's ALTER TABLE gives.
  */
class ColumnMappingChangesSuite extends SparkSuite {

  private def schemaAt(dir: String, v: Long): StructType = {
    RefLog.clearCache()
    RefVersions.snapshotAt(RefLog.forTable(spark, dir), v).metadata.schema
  }

  private def maxIdAt(dir: String, v: Long): Option[String] = {
    RefLog.clearCache()
    RefVersions
      .snapshotAt(RefLog.forTable(spark, dir), v)
      .metadata
      .configuration
      .get("delta.columnMapping.maxColumnId")
  }

  test("rename and drop under column mapping give delta-spark's ALTER TABLE schema") {
    val ref = tempDir("cm").resolve("ref").toString
    spark.sql(
      s"CREATE TABLE delta.`$ref` (id BIGINT, name STRING, s STRUCT<a: INT, b: INT>) " +
        "USING delta TBLPROPERTIES ('delta.columnMapping.mode' = 'name')"
    )
    spark.sql(s"ALTER TABLE delta.`$ref` RENAME COLUMN name TO full_name")
    spark.sql(s"ALTER TABLE delta.`$ref` DROP COLUMN s.b")
    spark.sql(s"ALTER TABLE delta.`$ref` ADD COLUMNS (extra INT)")
    // The same table before the ALTERs: a copy of delta-spark's version 0.
    val ours = copyOfVersion0(ref)
    val log = txlog.DeltaLog.forTable(spark, ours)
    def commitSchema(f: StructType => StructType): Unit = {
      val md = log.snapshot().metadata
      val t = log.startTransaction()
      t.updateMetadata(md.copy(schemaString = f(md.schema).json))
      assert(t.commit("CHANGE COLUMN").committed)
    }
    // Rename: the field keeps its metadata (id, physical name); only its name changes.
    commitSchema(s =>
      StructType(s.fields.map(f => if (f.name == "name") f.copy("full_name") else f))
    )
    commitSchema { s =>
      StructType(s.fields.map {
        case f @ StructField("s", st: StructType, _, _) =>
          f.copy(dataType = StructType(st.fields.filterNot(_.name == "b")))
        case f => f
      })
    }
    // A new column gets the next id (after the dropped one's) and a physical name.
    commitSchema(s => s.add("extra", IntegerType))
    (1L to 3L).foreach { v =>
      val theirs = schemaAt(ref, v)
      val mine = schemaAt(ours, v) // delta-spark reading txlog's commits
      assert(mine.fieldNames === theirs.fieldNames, s"v$v")
      def ids(st: StructType) =
        st.fields.toSeq.map(f => f.name -> f.metadata.getLong("delta.columnMapping.id"))
      assert(ids(mine) === ids(theirs), s"v$v ids")
      assert(mine("s").dataType === theirs("s").dataType, s"v$v nested field s")
      if (v < 3) assert(mine === theirs, s"v$v schema")
      assert(maxIdAt(ours, v) === maxIdAt(ref, v), s"v$v maxColumnId")
    }
  }

  test("a changed physical name or a reused id is INVALID_METADATA") {
    val dir = tempDir("cm").resolve("t").toString
    val log = txlog.DeltaLog.createTable(
      spark,
      dir,
      StructType.fromDDL("id BIGINT, name STRING"),
      Nil,
      Map("delta.columnMapping.mode" -> "id")
    )
    val md = log.snapshot().metadata
    def refused(s: StructType): String = {
      val t = log.startTransaction()
      t.updateMetadata(md.copy(schemaString = s.json))
      intercept[TxlogException](t.commit()).errorClass
    }
    val renamedPhysical = StructType(md.schema.fields.map { f =>
      if (f.name != "name") f
      else {
        f.copy(metadata =
          new MetadataBuilder()
            .withMetadata(f.metadata)
            .putString("delta.columnMapping.physicalName", "col-other")
            .build()
        )
      }
    })
    assert(refused(renamedPhysical) === "INVALID_METADATA")
    // Dropping `name` and giving its id to a new column would read the old data as the new one.
    val nameField = md.schema("name")
    val reused = StructType(
      Seq(
        md.schema("id"),
        StructField("other", StringType, metadata = nameField.metadata)
      )
    )
    val dropped = StructType(Seq(md.schema("id")))
    val t = log.startTransaction()
    t.updateMetadata(md.copy(schemaString = dropped.json))
    assert(t.commit().committed)
    val md2 = log.snapshot().metadata
    val t2 = log.startTransaction()
    t2.updateMetadata(md2.copy(schemaString = reused.json))
    assert(intercept[TxlogException](t2.commit()).errorClass === "INVALID_METADATA")
    assert(log.snapshot().version === 1L)
  }

  /** A copy of version 0 of the delta-spark table at `ref`, for txlog to commit on. */
  private def copyOfVersion0(ref: String): String = {
    val ours = tempDir("cm").resolve("ours")
    java.nio.file.Files.createDirectories(ours.resolve("_delta_log"))
    val v0 = "00000000000000000000.json"
    java.nio.file.Files.copy(
      java.nio.file.Paths.get(ref, "_delta_log", v0),
      ours.resolve("_delta_log").resolve(v0)
    )
    ours.toString
  }

  private def identities(s: StructType): Seq[(String, Long, String)] = s.fields.toSeq.map { f =>
    (
      f.name,
      f.metadata.getLong("delta.columnMapping.id"),
      f.metadata.getString("delta.columnMapping.physicalName")
    )
  }

  test("a schema given without column mapping metadata keeps the columns' ids and names") {
    val ref = tempDir("cm").resolve("ref").toString
    spark.sql(
      s"CREATE TABLE delta.`$ref` (id BIGINT, name STRING) USING delta " +
        "TBLPROPERTIES ('delta.columnMapping.mode' = 'name')"
    )
    spark.sql(s"ALTER TABLE delta.`$ref` ADD COLUMNS (extra INT)")
    val ours = copyOfVersion0(ref)
    val log = txlog.DeltaLog.forTable(spark, ours)
    val md = log.snapshot().metadata
    // As the Python API passes a DDL string: no ids or physical names on any field.
    val ddl = StructType.fromDDL("id BIGINT, name STRING, extra INT")
    val t = log.startTransaction().updateMetadata(md.copy(schemaString = ddl.json))
    assert(t.commit().committed)
    val theirs = schemaAt(ref, 1)
    val mine = schemaAt(ours, 1)
    assert(identities(mine).take(2) === identities(theirs).take(2), "existing columns unchanged")
    assert(identities(mine)(2)._2 === identities(theirs)(2)._2, "the new column's id")
    assert(maxIdAt(ours, 1) === maxIdAt(ref, 1))
  }

  test("enabling column mapping on a table keeps its columns' names as physical names") {
    val ref = tempDir("cm").resolve("ref").toString
    spark.sql(s"CREATE TABLE delta.`$ref` (id BIGINT, s STRUCT<a: INT>) USING delta")
    spark.sql(
      s"ALTER TABLE delta.`$ref` SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name', " +
        "'delta.minReaderVersion' = '2', 'delta.minWriterVersion' = '5')"
    )
    val ours = copyOfVersion0(ref)
    val log = txlog.DeltaLog.forTable(spark, ours)
    val md = log.snapshot().metadata
    val enabled = md.configuration ++ Map(
      "delta.columnMapping.mode" -> "name",
      "delta.minReaderVersion" -> "2",
      "delta.minWriterVersion" -> "5"
    )
    val t = log.startTransaction().updateMetadata(md.copy(configuration = enabled))
    assert(t.commit().committed)
    val theirs = schemaAt(ref, 1)
    val mine = schemaAt(ours, 1)
    assert(identities(mine) === identities(theirs))
    assert(identities(mine).map(f => f._1 -> f._3) === Seq("id" -> "id", "s" -> "s"))
    val nested = (t: StructType) => identities(t("s").dataType.asInstanceOf[StructType])
    assert(nested(mine) === nested(theirs))
    assert(maxIdAt(ours, 1) === maxIdAt(ref, 1))
  }
}
