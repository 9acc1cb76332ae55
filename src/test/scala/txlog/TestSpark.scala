package txlog

import scala.collection.mutable

import org.apache.spark.sql.SparkSession

/** The one SparkContext of a test JVM, and a session of it per suite.
  *
  * Suites share the context (starting one costs seconds, and a forked JVM runs dozens of suites);
  * each suite gets a new session of it ([[SparkSession.newSession]]: SQL settings of its own) with
  * its extra settings applied, made the active and default session while it runs. Settings named
  * `spark.hadoop.<key>` go to the context's Hadoop configuration as `<key>` and are taken back when
  * the suite ends. The settings suit tiny inputs: `local[2]`, 2 shuffle partitions (one per core; 4
  * took 13% longer on the checkpoint round trips), no UI, no event log, no generated code, no
  * adaptive execution.
  */
object TestSpark {

  /** The settings of the shared context (delta-spark is loaded as the test oracle). */
  val conf: Map[String, String] = Map(
    "spark.master" -> "local[2]",
    "spark.app.name" -> "txlog-tests",
    "spark.sql.shuffle.partitions" -> "2",
    "spark.ui.enabled" -> "false",
    "spark.ui.showConsoleProgress" -> "false",
    "spark.eventLog.enabled" -> "false",
    // txlog's SQL statements wrap delta-spark's parser: on a table that is not txlog's they are
    // delta-spark's (txlog.sql.SqlCommandsParitySuite).
    "spark.sql.extensions" ->
      "io.delta.sql.DeltaSparkSessionExtension,txlog.sql.TxlogSparkSessionExtensions",
    "spark.sql.catalog.spark_catalog" -> "org.apache.spark.sql.delta.catalog.DeltaCatalog",
    // One partition for delta-spark's snapshot state: a fifth less of each oracle read's CPU on
    // the fixtures' few files than with two (measured warm, golden/dv-partitioned-with-checkpoint).
    "spark.databricks.delta.snapshotPartitions" -> "1",
    // Generated code is compiled per query shape and pays off only on many rows; the tests' inputs
    // are a few rows, and the interpreted expressions took an eighth less CPU on RepairSuite and
    // ValidateSuite (same tests passing).
    "spark.sql.codegen.wholeStage" -> "false",
    "spark.sql.codegen.factoryMode" -> "NO_CODEGEN",
    // Adaptive execution re-plans every query with a shuffle after its first stage, which pays
    // off on skewed or large data only: off, SqlParitySuite, CheckpointStatsSuite, DataWriteSuite
    // and ValidateSuite took 8% less CPU (362 s instead of 393, the same tests passing). The
    // Python suite's session keeps Spark's default (on), as users run it, and so do the cluster
    // test and the writer processes.
    "spark.sql.adaptive.enabled" -> "false"
  )

  private lazy val root: SparkSession = {
    val s = SparkSession.builder().config(conf).getOrCreate()
    s.sparkContext.setLogLevel("ERROR")
    SparkSession.clearActiveSession()
    SparkSession.clearDefaultSession()
    s
  }

  private val hadoopPrefix = "spark.hadoop."
  private val restore = mutable.Map.empty[SparkSession, Map[String, Option[String]]]

  /** A new session of the shared context with `extra` applied, active and default from now on. */
  def open(extra: Map[String, String]): SparkSession = synchronized {
    val s = root.newSession()
    val (hadoop, sql) = extra.partition(_._1.startsWith(hadoopPrefix))
    sql.foreach { case (k, v) => s.conf.set(k, v) }
    val hc = s.sparkContext.hadoopConfiguration
    restore(s) = hadoop.map { case (k, v) =>
      val key = k.stripPrefix(hadoopPrefix)
      val before = Option(hc.get(key))
      hc.set(key, v)
      key -> before
    }
    SparkSession.setActiveSession(s)
    SparkSession.setDefaultSession(s)
    s
  }

  /** Ends a suite's session: its Hadoop settings taken back, cached data released. */
  def close(s: SparkSession): Unit = synchronized {
    val hc = s.sparkContext.hadoopConfiguration
    restore.remove(s).getOrElse(Map.empty).foreach {
      case (k, Some(v)) => hc.set(k, v)
      case (k, None)    => hc.unset(k)
    }
    s.catalog.clearCache()
    // As when each suite stopped its own Spark: code that looks for a running session (storage
    // settings, StorageConf) finds none between suites.
    SparkSession.clearActiveSession()
    SparkSession.clearDefaultSession()
  }
}
