package txlog

import org.scalatest.funsuite.AnyFunSuite

/** The jar records the Spark line and Scala version it is built for, and refuses to run on another
  * (the build of every line runs this suite on that line's Spark).
  */
class BuildInfoSuite extends AnyFunSuite with txlog.testing.Claimed {
  test("the jar is built for the Spark line and Scala version it runs on") {
    val spark = org.apache.spark.SPARK_VERSION.split('.').take(2).mkString(".")
    assert(BuildInfo.sparkLine === spark)
    assert(BuildInfo.sparkVersion.startsWith(spark + "."))
    assert(scala.util.Properties.versionNumberString.startsWith(BuildInfo.scalaBinary + "."))
    assert(BuildInfo.runtimeMismatch === None)
  }
}
