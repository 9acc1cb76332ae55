package txlog.testing

import java.lang.reflect.Modifier
import java.nio.file.{Files, Path, Paths}

import scala.jdk.CollectionConverters._
import scala.util.Try

import org.scalatest.Suite
import org.scalatest.funsuite.AnyFunSuite

/** Every suite sbt can run mixes in [[Claimed]]: `make test`'s two test JVMs share one queue of
  * suites, and a suite without it would run in both of them.
  */
class ClaimedSuitesSuite extends AnyFunSuite with Claimed {
  private val root: Path =
    Paths.get(classOf[ClaimedSuitesSuite].getProtectionDomain.getCodeSource.getLocation.toURI)

  /** The concrete suite classes compiled beside this one (what sbt discovers and runs). */
  private def suites: Seq[Class[_]] = {
    val walk = Files.walk(root)
    val names =
      try
        walk.iterator.asScala
          .map(p => root.relativize(p).toString)
          .filter(n => n.endsWith(".class") && !n.contains("$"))
          .map(_.stripSuffix(".class").replace(java.io.File.separatorChar, '.'))
          .toVector
      finally walk.close()
    names
      .flatMap(n => Try[Class[_]](Class.forName(n, false, getClass.getClassLoader)).toOption)
      .filter { c =>
        classOf[Suite].isAssignableFrom(c) && !c.isInterface &&
        !Modifier.isAbstract(c.getModifiers) && Modifier.isPublic(c.getModifiers)
      }
  }

  test("every suite is claimed by one test JVM only") {
    val found = suites
    assert(Seq(classOf[ClaimedSuitesSuite], classOf[TempDirsSuite]).forall(found.contains))
    val unclaimed = found.filterNot(classOf[Claimed].isAssignableFrom).map(_.getName)
    assert(unclaimed.isEmpty, s": these suites do not mix in txlog.testing.Claimed: $unclaimed")
  }

  test("the first JVM to reach a suite runs it, the other does not") {
    val dir = Files.createTempDirectory("claims")
    val first = SuiteClaims.takeIn(dir, "txlog.ExampleSuite")
    val again = SuiteClaims.takeIn(dir, "txlog.ExampleSuite")
    val other = SuiteClaims.takeIn(dir, "txlog.OtherSuite")
    assert((first, again, other) == ((true, false, true)))
  }
}
