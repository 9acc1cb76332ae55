package txlog.vacuum

import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._
import scala.util.{Failure, Success, Try}

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.Row
import org.apache.spark.sql.delta.{DeltaLog => RefLog}

import txlog.{DeltaLog, SparkSuite, TxlogException}
import txlog.config.TxlogConf
import txlog.testing.JobDescriptions

/** delta-spark as the oracle for VACUUM: its DRY RUN, its deletes, and what each version reads.
  * Paths are compared relative to the table root, unescaped, as found on disk; computed here from
  * delta-spark's answers and the file system, never by txlog.
  */
trait VacuumTestKit { self: SparkSuite =>

  /** Settings the oracle needs: retention below 7 days, and VACUUM START/END commits. */
  def vacuumConf: Map[String, String] = Map(
    "spark.databricks.delta.retentionDurationCheck.enabled" -> "false",
    // delta-spark 4.4 ignores RETAIN n HOURS but for n = 0 unless this is off.
    "spark.databricks.delta.vacuum.retentionWindowIgnore.enabled" -> "false",
    "spark.databricks.delta.vacuum.logging.enabled" -> "true",
    // delta-spark spreads its listing over this many tasks (10,000 by default): minutes on 2 cores.
    "spark.sql.sources.parallelPartitionDiscovery.parallelism" -> "4"
  )

  /** `p` (an absolute path as delta-spark prints it) relative to table `t`. */
  def relativeTo(t: Path, p: String): String = {
    val abs = Path.of(new org.apache.hadoop.fs.Path(p).toUri.getPath)
    t.toAbsolutePath.relativize(abs).toString
  }

  private def sql(t: Path, hours: Option[Int], lite: Boolean, dryRun: Boolean): Seq[Row] = {
    RefLog.clearCache()
    spark
      .sql(
        s"VACUUM delta.`$t`" + (if (lite) " LITE" else "") +
          hours.fold("")(h => s" RETAIN $h HOURS") + (if (dryRun) " DRY RUN" else "")
      )
      .collect()
      .toSeq
  }

  /** What delta-spark's VACUUM ... DRY RUN would delete, relative to `t`. */
  def refDryRun(t: Path, hours: Option[Int], lite: Boolean = false): Try[Set[String]] =
    Try(sql(t, hours, lite, dryRun = true).map(r => relativeTo(t, r.getString(0))).toSet)

  /** delta-spark's VACUUM, deleting. */
  def refVacuum(t: Path, hours: Option[Int], lite: Boolean = false): Unit =
    sql(t, hours, lite, dryRun = false)

  /** What txlog's dry run would delete (its `path` column). A full one runs both ways, and they
    * must agree in every row and number: as the session is set (on the driver, when the table is
    * small), then by Spark jobs (`spark.txlog.vacuum.onDriver` false), whose plan lists the table
    * with a job. [[driverDryRuns]] counts the first runs that ran no vacuum job.
    */
  def ourDryRun(t: Path, hours: Option[Int], lite: Boolean = false): Try[Set[String]] = Try {
    def run(): (Seq[Any], Set[Row]) = {
      val r = DeltaLog
        .forTable(spark, t.toString)
        .vacuum(hours.map(_.toDouble), dryRun = true, lite = lite, force = true)
      try {
        val numbers = Seq(r.numFiles, r.sizeInBytes, r.numVacuumedDirectories, r.numSkippedPaths)
        (numbers :+ r.skippedPathExamples, r.files.collect().toSet)
      } finally r.unpersist()
    }
    def vacuumJobs(jobs: Seq[String]) = jobs.filter(_.startsWith("txlog: vacuum"))
    def failure(e: Throwable) = e match {
      case t: TxlogException => t.errorClass
      case other             => other.getClass.getName
    }
    val first = Try(JobDescriptions.of(spark)(run()))
    if (!lite) {
      val planned =
        Try(withConf(TxlogConf.VacuumOnDriver.key -> "false")(JobDescriptions.of(spark)(run())))
      (first, planned) match {
        case (Success((found, jobs)), Success((plannedFound, plannedJobs))) =>
          assert(vacuumJobs(plannedJobs).nonEmpty, "the distributed plan ran no job")
          assert(found === plannedFound, "on the driver, then by Spark jobs")
          if (vacuumJobs(jobs).isEmpty) driverDryRuns += 1
        case (Failure(e), Failure(f)) => assert(failure(e) === failure(f), s"$e, then $f")
        case other                    => fail(s"on the driver, then by Spark jobs: $other")
      }
    }
    first.get._1._2.map(_.getAs[String]("path"))
  }

  /** Full dry runs by [[ourDryRun]] that ran no vacuum job (the driver's way). */
  var driverDryRuns = 0

  /** Every file and directory under `t` but `_delta_log` and hidden Hadoop `.crc` files. */
  def tree(t: Path): Set[String] = {
    val s = Files.walk(t)
    try
      s.iterator()
        .asScala
        .filter(_ != t)
        .map(p => t.relativize(p).toString)
        .filterNot(p => p.startsWith("_delta_log") || p.split('/').last.endsWith(".crc"))
        .toSet
    finally s.close()
  }

  /** A copy of `t` (file times kept) in a new temporary directory. */
  def copyTable(t: Path): Path = {
    val dest = tempDir("vacuum-copy").resolve(t.getFileName.toString)
    FileUtils.copyDirectory(t.toFile, dest.toFile, true)
    dest
  }

  /** The rows of version `v` as delta-spark reads them, sorted as text. */
  def rowsAt(t: Path, v: Long): Try[Seq[String]] = Try {
    RefLog.clearCache()
    spark.read
      .format("delta")
      .option("versionAsOf", v)
      .load(t.toString)
      .collect()
      .map(_.toString)
      .sorted
      .toSeq
  }

  /** Sets the modification time of every file under `t` (its log included) to `ageMillis` ago: the
    * shared fixtures were copied to this machine recently, so their files look new.
    */
  def ageAll(t: Path, ageMillis: Long): Path = {
    val s = Files.walk(t)
    try s.iterator().asScala.filter(Files.isRegularFile(_)).foreach(age(_, ageMillis))
    finally s.close()
    t
  }

  /** Sets the modification time of `p` to `ageMillis` ago. */
  def age(p: Path, ageMillis: Long): Unit =
    assert(p.toFile.setLastModified(System.currentTimeMillis() - ageMillis))

  def write(p: Path, text: String): Path = {
    Files.createDirectories(p.getParent)
    Files.writeString(p, text)
  }

  def latestVersion(t: Path): Long = {
    RefLog.clearCache()
    RefLog.forTable(spark, t.toString).update().version
  }
}
