package txlog.vacuum

import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._
import scala.util.Try

import org.apache.commons.io.FileUtils
import org.apache.spark.sql.Row
import org.apache.spark.sql.delta.{DeltaLog => RefLog}

import txlog.{DeltaLog, SparkSuite}

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

  /** What txlog's dry run would delete (its `path` column). */
  def ourDryRun(t: Path, hours: Option[Int], lite: Boolean = false): Try[Set[String]] = Try {
    val r = DeltaLog
      .forTable(spark, t.toString)
      .vacuum(hours.map(_.toDouble), dryRun = true, lite = lite, force = true)
    try r.files.collect().map(_.getAs[String]("path")).toSet
    finally r.unpersist()
  }

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
