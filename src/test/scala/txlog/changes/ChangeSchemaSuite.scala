package txlog.changes

import java.nio.file.{Files, Paths}

import org.apache.spark.sql.DataFrame

import txlog.{DeltaLog, SparkSuite, TxlogException}
import txlog.scan.Rows

/** The change data feed over ranges holding schema changes, against delta-spark's `table_changes`
  * on tables it writes here with the feed on: a rename and a drop (column mapping) and a type
  * widening inside the range are refused by both, an added column is read by both, a range starting
  * at the schema change is read by both; a table with a column named as one the feed adds is
  * refused (its table reads still work).
  */
class ChangeSchemaSuite extends SparkSuite {

  private val Cdf = "'delta.enableChangeDataFeed' = 'true'"

  private def table(name: String, ddl: String, statements: String*): String = {
    val t = tempDir("cdfschema-" + name).resolve("t").toString
    (ddl +: statements).foreach(s => spark.sql(s.replace("$t", s"delta.`$t`")))
    t
  }

  private def ref(path: String, start: Long, end: Long): DataFrame =
    spark.sql(s"SELECT * FROM table_changes_by_path('$path', $start, $end)")

  private def agree(path: String, start: Long, end: Long): Unit = {
    val (ours, theirs) = (DeltaLog.forTable(spark, path).changes(start, end), ref(path, start, end))
    assert(Rows.schema(ours) === Rows.schema(theirs), s"[$start, $end]")
    val o = Rows.sorted(ours)
    assert(o === Rows.sorted(theirs), s"[$start, $end]")
    info(s"[$start, $end]: ${o.size} rows agree")
  }

  /** Both refuse the range; txlog names `version`, the schema change from which it can be read.
    */
  private def refused(path: String, start: Long, end: Long, version: Long): TxlogException = {
    val theirs = intercept[Exception](ref(path, start, end).collect())
    assert(
      theirs.getMessage.contains("DELTA_CHANGE_DATA_FEED_INCOMPATIBLE_"),
      theirs.getMessage
    )
    val e = intercept[TxlogException](DeltaLog.forTable(spark, path).changes(start, end))
    assert(e.errorClass === "CHANGE_DATA_SCHEMA_INCOMPATIBLE")
    assert(e.version === Some(version), e.getMessage)
    info(s"[$start, $end] refused: ${e.cause}")
    e
  }

  test("column mapping: a rename or drop inside the range is refused, ranges from it are read") {
    val t = table(
      "mapped",
      "CREATE TABLE $t (id INT, name STRING, extra STRING) USING delta TBLPROPERTIES (" +
        s"'delta.columnMapping.mode' = 'name', $Cdf)",
      "INSERT INTO $t VALUES (1, 'a', 'x'), (2, 'b', 'y')",
      "ALTER TABLE $t RENAME COLUMN name TO label",
      "INSERT INTO $t VALUES (3, 'c', 'z')",
      "ALTER TABLE $t DROP COLUMN extra",
      "UPDATE $t SET label = 'u' WHERE id = 1",
      "ALTER TABLE $t ADD COLUMNS (`a score` DOUBLE)",
      "INSERT INTO $t VALUES (4, 'd', 1.5)"
    )
    assert(refused(t, 0L, 3L, 2L).cause.contains("renamed to label"))
    assert(refused(t, 3L, 5L, 4L).cause.contains("extra was dropped"))
    // the rows from the drop on can be read: the added column does not stand in the way
    assert(refused(t, 1L, 7L, 4L).cause.contains("extra was dropped"))
    agree(t, 2L, 3L) // starts at the rename
    agree(t, 4L, 7L) // starts at the drop, a column added inside
  }

  test("an added column inside the range is read, as table_changes reads it") {
    val t = table(
      "added",
      s"CREATE TABLE $$t (id INT, name STRING) USING delta TBLPROPERTIES ($Cdf)",
      "INSERT INTO $t VALUES (1, 'a'), (2, 'b')",
      "ALTER TABLE $t ADD COLUMNS (score DOUBLE, tags ARRAY<STRING>)",
      "INSERT INTO $t VALUES (3, 'c', 1.5, array('t'))",
      "UPDATE $t SET score = 2.0 WHERE id = 1"
    )
    agree(t, 0L, 4L)
    agree(t, 2L, 4L) // starts at the schema change
  }

  test("type widening inside the range is refused, as table_changes refuses it") {
    // txlog refuses the typeWidening feature on Spark 3.5, whose parquet reader cannot widen
    assume(spark.version.split('.').head.toInt >= 4, "Spark 3.5: typeWidening is not read")
    val t = table(
      "widened",
      s"CREATE TABLE $$t (id INT, v SHORT) USING delta TBLPROPERTIES ($Cdf, " +
        "'delta.enableTypeWidening' = 'true')",
      "INSERT INTO $t VALUES (1, CAST(1 AS SHORT))",
      "ALTER TABLE $t ALTER COLUMN v TYPE INT",
      "INSERT INTO $t VALUES (2, 100000)"
    )
    assert(refused(t, 0L, 3L, 2L).cause.contains("SMALLINT to INT"))
    agree(t, 2L, 3L)
  }

  test("a column named as one the feed adds: the feed is refused, table reads are not") {
    val t = table(
      "reserved",
      "CREATE TABLE $t (id INT, _commit_version BIGINT) USING delta",
      "INSERT INTO $t VALUES (1, 7)"
    )
    // delta-spark refuses to turn the feed on for such a table: another writer did it
    val commit = Paths.get(t, "_delta_log", "00000000000000000000.json")
    val text = new String(Files.readAllBytes(commit), "UTF-8")
    val (empty, cdf) = ("\"configuration\":{}", "\"delta.enableChangeDataFeed\":\"true\"")
    val on =
      if (text.contains(empty)) text.replace(empty, "\"configuration\":{" + cdf + "}")
      else text.replace("\"configuration\":{", "\"configuration\":{" + cdf + ",")
    assert(on != text)
    Files.write(commit, on.getBytes("UTF-8"))
    // checksums (Hadoop's and the version checksums, which repeat the metadata) are stale
    Files.list(commit.getParent).toArray.map(_.asInstanceOf[java.nio.file.Path]).foreach { f =>
      if (f.getFileName.toString.endsWith(".crc")) Files.delete(f)
    }
    val log = DeltaLog.forTable(spark, t)
    val e = intercept[TxlogException](log.changes(0L, 1L))
    assert(e.errorClass === "CHANGE_DATA_SCHEMA_INCOMPATIBLE")
    assert(e.problem.contains("_commit_version"), e.getMessage)
    assert(Rows.sorted(log.read()) === Rows.sorted(spark.read.format("delta").load(t)))
    val theirs = scala.util.Try(ref(t, 0L, 1L).columns.toSeq)
    info(s"delta-spark's table_changes: $theirs")
  }

  test("the rules on schemas delta-spark cannot write here: nested, nullability, spelling") {
    import org.apache.spark.sql.types._
    def at(v: Long, schema: StructType, mode: String = "none") =
      RangeSchema(v, schema, Nil, mode)
    def why(old: StructType, read: StructType) =
      ChangeSchemas.incompatibility(at(0L, old), at(1L, read))
    val inner = new StructType().add("a", IntegerType).add("b", StringType)
    val base = new StructType().add("id", LongType).add("s", inner)
    // as SchemaUtils.isReadCompatible with forbidTightenNullability (delta-spark 4.4)
    assert(why(base, base.add("c", StringType)) === None)
    assert(
      why(base, new StructType().add("id", LongType).add("s", inner.add("c", DateType))) ===
        None
    )
    assert(why(base, new StructType().add("id", LongType)).get.contains("column s is not"))
    val noA = new StructType().add("id", LongType).add("s", new StructType().add("b", StringType))
    assert(why(base, noA).get.contains("column s.a is not"))
    assert(why(base, new StructType().add("ID", LongType).add("s", inner)).get.contains("spelt"))
    assert(
      why(base, new StructType().add("id", LongType, nullable = false).add("s", inner)).get
        .contains("non-null")
    )
    assert(why(new StructType().add("id", LongType, nullable = false), base) === None)
    assert(
      why(new StructType().add("n", NullType), new StructType().add("n", IntegerType)) ===
        None
    )
    val arr = (c: Boolean) => new StructType().add("xs", ArrayType(IntegerType, c))
    assert(why(arr(true), arr(false)).get.contains("elements of xs"))
    // column mapping: partition columns, mapping turned off
    val mapped = at(0L, base, "name").copy(partitionColumns = Seq("id"))
    assert(ChangeSchemas.incompatibility(mapped, at(1L, base, "name")).get.contains("partition"))
    assert(ChangeSchemas.incompatibility(at(0L, base, "id"), at(1L, base)).get.contains("off"))
  }
}
