package txlog

import java.nio.file.{Files, Path, Paths}

import org.apache.spark.sql.SparkSession
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

/** A suite with a SparkSession of the JVM's one shared context ([[TestSpark]]), with delta-spark
  * loaded as the test oracle. In `make test` it runs in one of the two test JVMs only
  * ([[txlog.testing.Claimed]]).
  */
trait SparkSuite extends AnyFunSuite with BeforeAndAfterAll with txlog.testing.Claimed {
  @transient private var session: SparkSession = _

  /** Extra session settings a suite needs (SQL settings, or `spark.hadoop.*`). */
  def extraConf: Map[String, String] = Map.empty

  def spark: SparkSession = {
    if (session == null) session = TestSpark.open(extraConf)
    session
  }

  override def afterAll(): Unit = {
    try super.afterAll()
    finally if (session != null) { TestSpark.close(session); session = null }
  }

  /** A new empty temporary directory, removed when the JVM exits. */
  def tempDir(prefix: String = "txlog"): Path = txlog.testing.TempDirs.create(prefix)

  /** `body` with the session settings `settings`, unset after. */
  def withConf[T](settings: (String, String)*)(body: => T): T = {
    settings.foreach { case (k, v) => spark.conf.set(k, v) }
    try body
    finally settings.foreach { case (k, _) => spark.conf.unset(k) }
  }
}

/** The shared Delta fixtures (../shared/fixtures), read in place; absent in users' clones. */
object Fixtures {
  val root: Path = Paths.get("..", "shared", "fixtures").toAbsolutePath.normalize()
  def available: Boolean = Files.isDirectory(root)
  val skipMessage = s"shared fixtures not found at $root (they exist only beside the project)"

  /** Every directory under the fixtures holding a `_delta_log`, relative names sorted. */
  lazy val tables: Seq[String] =
    if (!available) Seq.empty
    else {
      import scala.jdk.CollectionConverters._
      val s = Files.walk(root)
      try
        s.iterator()
          .asScala
          .filter(p => p.getFileName.toString == "_delta_log" && Files.isDirectory(p))
          .map(p => root.relativize(p.getParent).toString)
          .toSeq
          .sorted
      finally s.close()
    }

  def path(name: String): String = root.resolve(name).toString

  /** The commit files of fixture `name` after its newest checkpoint (all of them without one). */
  def tailCommits(name: String): Int = {
    val names = Option(root.resolve(name).resolve("_delta_log").toFile.list()).toSeq.flatten
    def version(f: String) = f.take(20).toLong
    val checkpoint = names.filter(_.matches("\\d{20}\\.checkpoint\\..*")).map(version)
    val after = if (checkpoint.isEmpty) -1L else checkpoint.max
    names.count(f => f.matches("\\d{20}\\.json") && version(f) > after)
  }

  /** Copies a fixture to a fresh temp dir, so a test may change it. */
  def copy(name: String, to: Path): Path = {
    import org.apache.commons.io.FileUtils
    val dest = to.resolve(Paths.get(name).getFileName)
    FileUtils.copyDirectory(root.resolve(name).toFile, dest.toFile)
    dest
  }
}
