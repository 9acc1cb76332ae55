import sbt._

/** A Spark line txlog is built for: the Spark release it compiles against (`provided`), the
  * Scala versions that line is published for, the delta-spark release that serves as its test
  * oracle, and the shim source folders its version-specific code comes from.
  *
  * The line is chosen with `-Dtxlog.spark=<line>` (3.5, 4.0, 4.1, 4.2, 4.3) and, for lines
  * published for two Scala versions, `-Dtxlog.scala=<2.12|2.13>`; without them: 4.2 with 2.13.
  * Example: `build/sbt -Dtxlog.spark=3.5 -Dtxlog.scala=2.12 package`.
  */
final case class SparkLine(
    line: String,
    sparkVersion: String,
    scalaVersions: Map[String, String],
    pysparkVersion: String,
    deltaOracle: Option[String => ModuleID],
    shims: Seq[String],
    fromPyPiOnly: Boolean = false,
    /** The spark-connect release compiled against, when Maven Central lacks this line's own. */
    connectVersion: Option[String] = None,
    testExcludes: Set[String] = Set.empty,
    s3: Option[S3Deps] = None
) {

  /** The artifact name, as delta-spark names its own (`delta-spark_4.2_2.13`). */
  def artifact: String = s"txlog-spark_$line"

  /** Where this line builds: `target/` for the default line, `target/spark-<line>_<scala>` else. */
  def targetDir(base: File, scalaBinary: String): File =
    if (line == SparkLine.Default.line && scalaBinary == "2.13") base / "target"
    else base / "target" / s"spark-${line}_$scalaBinary"
}

/** What the S3 suites of a line run on: hadoop-aws of the Hadoop that line's Spark bundles and the
  * AWS SDK release that hadoop-aws is built against (its `hadoop-project` pom): v2 from hadoop-aws
  * 3.4, v1 (`1.x`) before.
  */
final case class S3Deps(hadoopAws: String, awsSdk: String) {
  def sdkV1: Boolean = awsSdk.startsWith("1.")
}

object SparkLine {
  private def delta(version: String, artifact: String): Option[String => ModuleID] =
    Some(_ => "io.delta" % artifact % version % Test)

  val all: Seq[SparkLine] = Seq(
    SparkLine(
      "3.5",
      "3.5.7",
      Map("2.12" -> "2.12.18", "2.13" -> "2.13.8"),
      "3.5.7",
      Some(scala => "io.delta" % s"delta-spark_$scala" % "3.3.2" % Test),
      Seq("spark-3.5", "spark-3.5-4.0"),
      // delta-spark 3.3 has no file size histogram utilities to compare checksums with. The S3
      // fault suite injects its faults into S3A's AWS SDK v2 client (S3ConditionalPutSuite has
      // faults for both SDKs).
      testExcludes =
        Set("VersionChecksumSuite.scala", "CommitChecksumSuite.scala", "S3FaultsSuite.scala"),
      // S3A on the AWS SDK v1: no conditional create, txlog's conditional PUT through its client.
      s3 = Some(S3Deps("3.3.4", "1.12.262"))
    ),
    SparkLine(
      "4.0",
      "4.0.4",
      Map("2.13" -> "2.13.16"),
      "4.0.4",
      delta("4.4.0", "delta-spark_4.0_2.13"),
      Seq("spark-4.x", "spark-4.0", "spark-3.5-4.0"),
      // spark-connect 4.0.2 to 4.0.4 are not on Maven Central; 4.0.1's plugin interfaces are
      // the line's (a server of 4.0.4 loads the plugin compiled against them).
      connectVersion = Some("4.0.1"),
      // S3A without the conditional create; its SDK, 2.24.6, has no s3-transfer-manager on Maven
      // Central: the patch release before it.
      s3 = Some(S3Deps("3.4.1", "2.24.5"))
    ),
    SparkLine(
      "4.1",
      "4.1.3",
      Map("2.13" -> "2.13.17"),
      "4.1.3",
      delta("4.4.0", "delta-spark_4.1_2.13"),
      Seq("spark-4.x", "spark-4.1-4.2", "spark-4.1-4.3"),
      s3 = Some(S3Deps("3.4.2", "2.29.52"))
    ),
    SparkLine(
      "4.2",
      "4.2.0",
      Map("2.13" -> "2.13.17"),
      "4.2.0",
      delta("4.4.0", "delta-spark_4.2_2.13"),
      Seq("spark-4.x", "spark-4.1-4.2", "spark-4.1-4.3"),
      s3 = Some(S3Deps("3.5.0", "2.35.4"))
    ),
    // Spark 4.3.0 is published on PyPI but not on Maven Central: the build compiles against the
    // jars inside the pyspark wheel, and no delta-spark release supports it yet (the delta-rs
    // agreement suites are its oracle).
    SparkLine(
      "4.3",
      "4.3.0",
      Map("2.13" -> "2.13.17"),
      "4.3.0",
      None,
      Seq("spark-4.x", "spark-4.3", "spark-4.1-4.3"),
      fromPyPiOnly = true
    )
  )

  val Default: SparkLine = all.find(_.line == "4.2").get

  /** The line chosen by `-Dtxlog.spark` (default 4.2). */
  def selected: SparkLine = {
    val wanted = sys.props.getOrElse("txlog.spark", Default.line).trim
    all.find(_.line == wanted).getOrElse {
      sys.error(
        s"-Dtxlog.spark=$wanted is not a supported Spark line; use one of " +
          all.map(_.line).mkString(", ")
      )
    }
  }

  /** The Scala binary version chosen by `-Dtxlog.scala` for `line` (default 2.13). */
  def scalaBinary(line: SparkLine): String = {
    val wanted = sys.props.getOrElse("txlog.scala", "2.13").trim
    if (!line.scalaVersions.contains(wanted)) {
      sys.error(
        s"Spark ${line.line} is built for Scala ${line.scalaVersions.keys.toSeq.sorted
            .mkString(" and ")}, not -Dtxlog.scala=$wanted"
      )
    }
    wanted
  }
}
