// txlog: a Spark-native implementation of the Delta Lake transaction log protocol.
// Versions are pinned together: Spark (provided) is the one the pinned pyspark and the
// delta-spark test oracle share.

val sparkVersion = "4.2.0"
val deltaOracleVersion = "4.4.0"
// Spark's major.minor selects the shim source folder for version-specific code.
val sparkBinary = sparkVersion.split('.').take(2).mkString(".")

ThisBuild / organization := "io.txlog"
ThisBuild / version := "0.1.0"
ThisBuild / scalaVersion := "2.13.17"

lazy val root = (project in file("."))
  .settings(
    name := "txlog",
    scalacOptions ++= Seq("-deprecation", "-feature", "-unchecked", "-release", "17"),
    javacOptions ++= Seq("--release", "17"),
    Compile / unmanagedSourceDirectories +=
      baseDirectory.value / "src" / "main" / s"shims-spark-$sparkBinary",
    libraryDependencies ++= Seq(
      "org.apache.spark" %% "spark-sql" % sparkVersion % Provided,
      "org.scalatest" %% "scalatest" % "3.2.19" % Test,
      // Oracle only: the reference implementation, never a runtime dependency.
      "io.delta" % s"delta-spark_${sparkBinary}_2.13" % deltaOracleVersion % Test
    ),
    // Spark classes are `provided` at compile time but needed to run tests and the demo.
    Test / fork := true,
    Test / parallelExecution := false,
    Test / baseDirectory := (ThisBuild / baseDirectory).value,
    Test / javaOptions ++= Seq("-Xmx4g", "-XX:+UseG1GC") ++ JvmFlags.sparkOpens,
    Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oDF"),
    Compile / run := Defaults
      .runTask(Compile / fullClasspath, Compile / run / mainClass, Compile / run / runner)
      .evaluated,
    Compile / runMain := Defaults
      .runMainTask(Compile / fullClasspath, Compile / run / runner)
      .evaluated,
    Compile / run / fork := true,
    Compile / run / javaOptions ++= JvmFlags.sparkOpens,
    Compile / run := Defaults
      .runTask(Compile / fullClasspath, Compile / run / mainClass, Compile / run / runner)
      .evaluated,
    Compile / packageBin / packageOptions += Package.ManifestAttributes(
      "Implementation-Title" -> "txlog",
      "Implementation-Version" -> version.value,
      "Spark-Version" -> sparkVersion
    ),
    // Version file read by the Python package to check the jar matches it.
    Compile / resourceGenerators += Def.task {
      val f = (Compile / resourceManaged).value / "txlog" / "version.properties"
      IO.write(f, s"version=${version.value}\nspark.version=$sparkVersion\n")
      Seq(f)
    }.taskValue
  )
  .settings(s3TestSettings)

// The benchmark runner (engine `txlog-scala` of bench/run.py): its own project, so `sbt test`
// does not compile it. Sources in bench/scala/txlog/bench; run with `bench/runMain`.
lazy val bench = (project in file("bench/scala"))
  .dependsOn(root)
  .settings(
    name := "txlog-bench",
    publish / skip := true,
    scalacOptions ++= Seq("-deprecation", "-feature", "-unchecked", "-release", "17"),
    Compile / scalaSource := baseDirectory.value,
    Compile / javaSource := baseDirectory.value,
    Compile / resourceDirectory := baseDirectory.value / "resources",
    target := (ThisBuild / baseDirectory).value / "target" / "bench",
    // As for txlog: provided (the Scala version is the one Spark is built for), on the run
    // classpath through Compile / fullClasspath.
    libraryDependencies += "org.apache.spark" %% "spark-sql" % sparkVersion % Provided,
    Compile / run := Defaults
      .runTask(Compile / fullClasspath, Compile / run / mainClass, Compile / run / runner)
      .evaluated,
    Compile / runMain := Defaults
      .runMainTask(Compile / fullClasspath, Compile / run / runner)
      .evaluated,
    Compile / run / fork := true,
    Compile / run / baseDirectory := (ThisBuild / baseDirectory).value,
    Compile / run / javaOptions ++= Seq("-XX:+UseG1GC") ++ JvmFlags.sparkOpens
  )

// ---- Tables on S3 (issue #11): test scope only, nothing here reaches the jar. ----------------
// hadoop-aws of the Hadoop that Spark bundles (Spark 4.2: 3.5.0; 4.0: 3.4.1; 3.5: 3.3.4, whose
// S3A uses the v1 SDK) with only the AWS SDK v2 modules S3A loads instead of the SDK's ~600 MB
// `bundle`, and S3Proxy's self-contained jar in a hidden configuration of its own (on no
// classpath): the S3 suites start it as a child JVM (txlog.storage.S3Proxy), found through the
// system property txlog.test.s3proxy.jar. Tests of the conditional create cancel themselves
// where S3A lacks it (Hadoop < 3.4.2).
val hadoopAwsVersion = "3.5.0"
val awsSdkVersion = "2.35.4" // the SDK hadoop-aws 3.5.0 is built against
val s3ProxyVersion = "4.0.0"
lazy val S3ProxyJar = config("s3proxy").hide
lazy val s3TestSettings = Seq(
  ivyConfigurations += S3ProxyJar,
  libraryDependencies ++= Seq(
    ("org.apache.hadoop" % "hadoop-aws" % hadoopAwsVersion % Test)
      .exclude("software.amazon.awssdk", "bundle"),
    // s3 brings auth, regions, sdk-core and the apache (sync) and netty (async) HTTP clients.
    // S3A also loads the transfer manager when it starts (and, from hadoop-aws's own
    // dependencies, the analytics accelerator); STS and the rest of the SDK are never loaded.
    "software.amazon.awssdk" % "s3" % awsSdkVersion % Test,
    "software.amazon.awssdk" % "s3-transfer-manager" % awsSdkVersion % Test,
    ("org.gaul" % "s3proxy" % s3ProxyVersion % S3ProxyJar)
      .classifier("jar-with-dependencies")
      .intransitive()
  ),
  Test / javaOptions += {
    val jar = update.value.select(configurationFilter(S3ProxyJar.name)).head
    s"-Dtxlog.test.s3proxy.jar=$jar"
  }
)
