package txlog.sql

import org.apache.spark.sql.Row

import txlog.SparkSuite

/** What the DML parity suites share: the catalog `txlog`, one database of theirs (`database`), a
  * [[SqlPair]] per test, the partitioned table they all start from, and each table's latest commit
  * as `DESCRIBE HISTORY` shows it.
  */
trait SqlParity extends SparkSuite with DeltaRsReadsBack {

  /** The suite's database (each suite its own, at a fresh directory). */
  protected def database: String

  override def extraConf: Map[String, String] =
    Map("spark.sql.catalog.txlog" -> classOf[TxlogCatalog].getName)

  private lazy val db: String = {
    spark.sql(s"CREATE DATABASE IF NOT EXISTS $database LOCATION '${tempDir(database)}'")
    database
  }

  protected def pair(name: String): SqlPair = new SqlPair(spark, db, name, tempDir, readBack)

  /** `(id BIGINT, part STRING, v STRING)` partitioned by `part`, deletion vectors as `dvs` says. */
  protected def create(dvs: Boolean): String =
    "CREATE TABLE {t} (id BIGINT, part STRING, v STRING) USING {p} PARTITIONED BY (part) " +
      s"LOCATION '{loc}' TBLPROPERTIES ('delta.enableDeletionVectors' = '$dvs')"

  protected def latest(table: String): Row =
    spark.sql(s"DESCRIBE HISTORY $table LIMIT 1").collect().head

  /** The `keys` of the latest commit's operation metrics ("absent" for those it has not). */
  protected def metricsOf(table: String, keys: Seq[String]): Map[String, String] = {
    val m = latest(table).getAs[scala.collection.Map[String, String]]("operationMetrics")
    keys.map(k => k -> m.getOrElse(k, "absent")).toMap
  }

  /** The columns of `table` as Spark reads them: name and type. */
  protected def columnsOf(table: String): Seq[(String, String)] =
    spark.table(table).schema.fields.toSeq.map(f => f.name -> f.dataType.simpleString)

  protected def versionOf(table: String): Long = latest(table).getAs[Long]("version")

  /** Each row's `_metadata.row_id` and `row_commit_version`, by its `id` (unique in the table). */
  protected def rowIds(table: String): Map[Long, (Long, Long)] = spark
    .sql(s"SELECT id, _metadata.row_id, _metadata.row_commit_version FROM $table")
    .collect()
    .map(r => r.getLong(0) -> (r.getLong(1), r.getLong(2)))
    .toMap

  /** What row tracking asks of a DML committed as `version` that took the table's rows from
    * `before` to `after` ([[rowIds]]): every row left keeps its id, new rows get ids no row had or
    * has, and a row's commit version is either unchanged or `version`. Returns the ids of the rows
    * whose version moved (the rows the statement changed).
    */
  protected def rowIdsKept(
      before: Map[Long, (Long, Long)],
      after: Map[Long, (Long, Long)],
      version: Long
  ): Set[Long] = {
    val kept = after.keySet.intersect(before.keySet)
    kept.foreach(id => assert(after(id)._1 == before(id)._1, s"row $id: $before -> $after"))
    val fresh = after.keySet -- before.keySet
    val freshIds = fresh.toSeq.map(after(_)._1)
    assert(freshIds.distinct.size == freshIds.size, s"fresh row ids repeat: $after")
    assert(freshIds.forall(i => !before.values.exists(_._1 == i)), s"$before -> $after")
    assert(fresh.forall(id => after(id)._2 == version), s"new rows' versions: $after")
    val moved = kept.filter(id => after(id)._2 != before(id)._2)
    moved.foreach(id => assert(after(id)._2 == version, s"row $id: $before -> $after"))
    moved
  }
}
