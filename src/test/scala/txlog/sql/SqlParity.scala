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

  protected def versionOf(table: String): Long = latest(table).getAs[Long]("version")
}
