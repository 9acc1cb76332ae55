package txlog.testing

import java.nio.file.{FileAlreadyExistsException, Files, Path, Paths}

import org.scalatest.events.{InfoProvided, NameInfo}
import org.scalatest.{Args, Status, Suite, SucceededStatus}

/** A suite that runs in only one of the test JVMs sharing a queue of suites.
  *
  * `make test` runs the Scala suites in two JVMs that share one queue: the first lane's JVM takes
  * them from the front (longest first), the second lane's from the back once its Python suite and
  * Spark 3.5 run have ended, until the two meet (project/TestGroups.scala). Which JVM runs a suite
  * is decided when one of them reaches it: the first to create the suite's file in the directory
  * `-Dtxlog.testClaims` names runs it, the other reports it as run elsewhere and moves on. Without
  * the property (sbt's `test` and `testOnly`, every other `make` target) every suite runs.
  *
  * Every suite mixes this in (SparkSuite does; a suite of this package fails naming any that does
  * not): a suite without it would run in both JVMs.
  */
trait Claimed extends Suite {
  abstract override def run(testName: Option[String], args: Args): Status =
    if (SuiteClaims.take(suiteId)) super.run(testName, args)
    else {
      val where = Some(NameInfo(suiteName, suiteId, Some(getClass.getName), None))
      args.reporter(
        InfoProvided(args.tracker.nextOrdinal(), "run by the other test JVM", where)
      )
      SucceededStatus
    }
}

/** The claims of one `make test` run: a file per suite in the `-Dtxlog.testClaims` directory. */
object SuiteClaims {
  private[testing] val dir: Option[Path] =
    sys.props.get("txlog.testClaims").filter(_.trim.nonEmpty).map(Paths.get(_))

  /** True when this JVM is to run the suite `id`: claims are off, or it claimed it first. */
  def take(id: String): Boolean = dir.forall(takeIn(_, id))

  /** Claims suite `id` in `dir`: true for the first caller only (the file's creation is atomic). */
  def takeIn(dir: Path, id: String): Boolean = {
    Files.createDirectories(dir)
    try { Files.createFile(dir.resolve(id)); true }
    catch { case _: FileAlreadyExistsException => false }
  }
}
