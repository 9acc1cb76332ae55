package txlog.testing

import java.lang.management.ManagementFactory
import java.nio.file.{Files, Path, StandardOpenOption}

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.SparkSession

import txlog.DeltaLog

/** A writer in its own JVM, for tests of writers racing as OS processes and of writers killed with
  * `kill -9`: appends one file per commit to a table through `txlog.Transaction`, and after each
  * commit appends a line `<version> <attempts> <path>` to its result file (flushed, so a killed
  * writer's lines are those it finished).
  *
  * Arguments: table path, writer id, number of commits (0: until killed), result file.
  */
object WriterProcess {

  def main(args: Array[String]): Unit = {
    val Array(table, id, commits, result) = args
    val spark = SparkSession
      .builder()
      .master("local[1]")
      .appName(s"writer-$id")
      .config("spark.ui.enabled", "false")
      .config("spark.sql.shuffle.partitions", "1")
      // A short-lived JVM committing a few rows at a time: compiling generated code would cost
      // more than it saves (as in TestSpark).
      .config("spark.sql.codegen.wholeStage", "false")
      .config("spark.sql.codegen.factoryMode", "NO_CODEGEN")
      .config("spark.hadoop.fs.file.impl", classOf[PausingLocalFileSystem].getName)
      .config("spark.hadoop.fs.file.impl.disable.cache", "true")
      .getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    import spark.implicits._
    val log = DeltaLog.forTable(spark, table)
    val n = commits.toInt
    var i = 0
    while (n == 0 || i < n) {
      i += 1
      val path = s"w$id/f$i.parquet"
      val add = Seq((path, 100L + i, Map.empty[String, String], 1700000000000L, true))
        .toDF("path", "size", "partitionValues", "modificationTime", "dataChange")
      val r = log.startTransaction().addFiles(add).commit("WRITE")
      Files.writeString(
        Path.of(result),
        s"${r.version} ${r.attempts} $path\n",
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND,
        StandardOpenOption.SYNC
      )
    }
    spark.stop()
  }

  /** Starts a writer JVM with the test JVM's class path and module options, and `props` as system
    * properties; its output goes to `logFile`.
    */
  def start(
      table: String,
      id: Int,
      commits: Int,
      result: Path,
      logFile: Path,
      props: Map[String, String] = Map.empty
  ): Process = {
    val java = Path.of(System.getProperty("java.home"), "bin", "java").toString
    val opens = ManagementFactory.getRuntimeMXBean.getInputArguments.asScala.filter(a =>
      a.startsWith("--add-opens") || a.startsWith("--add-exports") || a.startsWith("-Djava.")
    )
    val cmd = Seq(java, "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1") ++ opens ++
      props.map { case (k, v) => s"-D$k=$v" } ++
      Seq("-cp", System.getProperty("java.class.path"), getClass.getName.stripSuffix("$")) ++
      Seq(table, id.toString, commits.toString, result.toString)
    new ProcessBuilder(cmd: _*)
      .redirectErrorStream(true)
      .redirectOutput(logFile.toFile)
      .start()
  }
}
