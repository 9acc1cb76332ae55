package txlog

import java.util.Properties

/** The version of this txlog build, read from the jar's `txlog/version.properties`. */
object BuildInfo {
  private lazy val props: Properties = {
    val p = new Properties()
    val in = getClass.getResourceAsStream("/txlog/version.properties")
    if (in != null)
      try p.load(in)
      finally in.close()
    p
  }

  /** Example: `txlog.BuildInfo.version` is `0.1.0`. */
  def version: String = props.getProperty("version", "unknown")

  /** The Spark version the jar was built against. Example: `txlog.BuildInfo.sparkVersion`. */
  def sparkVersion: String = props.getProperty("spark.version", "unknown")

  /** The Spark line (major.minor) the jar was built for. Example: `txlog.BuildInfo.sparkLine` is
    * `4.2` for `txlog-spark_4.2_2.13`.
    */
  def sparkLine: String = props.getProperty("spark.line", "unknown")

  /** The Scala binary version the jar was built for. Example: `txlog.BuildInfo.scalaBinary`. */
  def scalaBinary: String = props.getProperty("scala.binary", "unknown")

  /** Why this jar cannot run in this JVM (built for another Spark line or Scala version), if so:
    * such a jar would fail later with a linkage error far from the cause.
    */
  private[txlog] lazy val runtimeMismatch: Option[String] = {
    val spark = org.apache.spark.SPARK_VERSION.split('.').take(2).mkString(".")
    val scalaRunning = scala.util.Properties.versionNumberString
    val scalaLine = scalaRunning.split('.').take(2).mkString(".")
    if (sparkLine == "unknown" || (spark == sparkLine && scalaLine == scalaBinary)) None
    else {
      Some(
        s"This txlog jar is built for Spark $sparkLine with Scala $scalaBinary, but runs on " +
          s"Spark ${org.apache.spark.SPARK_VERSION} with Scala $scalaRunning."
      )
    }
  }
}
