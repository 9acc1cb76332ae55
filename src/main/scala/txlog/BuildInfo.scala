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
}
