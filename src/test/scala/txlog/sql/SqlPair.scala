package txlog.sql

import java.nio.file.{Path, Paths}

import org.apache.spark.sql.{DataFrame, SparkSession}

import txlog.scan.Rows

/** A delta-spark table and a txlog table of one name in database `db`, each at a fresh directory
  * (`dir`): the parity suites run one statement on both (`{t}` the table, `{p}` the provider,
  * `{loc}` the location) and compare. delta-spark's table is in `spark_catalog`, txlog's in the
  * catalog `txlog`.
  */
final class SqlPair(
    spark: SparkSession,
    db: String,
    name: String,
    dir: String => Path,
    readBack: DeltaRsReadBack
) {
  val deltaTable = s"spark_catalog.$db.d_$name"
  val txlogTable = s"txlog.$db.t_$name"
  val deltaPath: String = dir("sqld").toString
  val txlogPath: String = dir("sqlt").toString

  def delta(sql: String): DataFrame = spark.sql(fill(sql, "delta", deltaTable, deltaPath))
  def txlog(sql: String): DataFrame = spark.sql(fill(sql, "txlog", txlogTable, txlogPath))
  def both(sql: String): Unit = { delta(sql).collect(); txlog(sql).collect(); () }

  /** delta-spark's statement on the txlog table's path (the oracle reading txlog's table). */
  def deltaOnTxlog(sql: String): DataFrame = spark.sql(sql.replace("{t}", s"delta.`$txlogPath`"))

  /** txlog's table, read by txlog (and, with `byPath`, by delta-spark at its path), has
    * delta-spark's table's rows; when txlog's table is at [[txlogPath]], delta-rs reads it at this
    * version at the suite's end ([[DeltaRsReadBack]]).
    */
  def sameRows(byPath: Boolean = true): Unit = {
    val rows = spark.table(deltaTable).collect().toSeq
    val expected = rows.map(Rows.text).sorted
    val ours = Rows.sorted(spark.table(txlogTable))
    assert(ours == expected, s"txlog's rows of $name: $ours, delta-spark's: $expected")
    if (byPath) {
      assert(
        Rows.sorted(spark.read.format("delta").load(txlogPath)) == expected,
        s"delta-spark's rows of txlog's $name"
      )
    }
    latestCommit.foreach(v => readBack.add(txlogPath, v, rows))
  }

  /** The newest commit file's version of a table at [[txlogPath]], by its file names (not by
    * txlog's reading of them); none when txlog's table is elsewhere (a managed table).
    */
  private def latestCommit: Option[Long] =
    Option(Paths.get(txlogPath, "_delta_log").toFile.list())
      .map(_.toSeq)
      .getOrElse(Nil)
      .filter(_.matches("\\d{20}\\.json"))
      .map(_.take(20).toLong)
      .reduceOption(_ max _)

  private def fill(sql: String, provider: String, table: String, path: String) =
    sql.replace("{t}", table).replace("{p}", provider).replace("{loc}", path)
}
