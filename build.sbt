// txlog: a Spark-native implementation of the Delta Lake transaction log protocol.
// Versions are pinned together: Spark (provided) is the one the pinned pyspark and the
// delta-spark test oracle share.

// The Spark line (and Scala version) to build for: -Dtxlog.spark=3.5|4.0|4.1|4.2|4.3 and
// -Dtxlog.scala=2.12|2.13, default 4.2 with 2.13 (project/SparkLine.scala lists the lines).
val line = SparkLine.selected
val scalaBinary = SparkLine.scalaBinary(line)
val sparkVersion = line.sparkVersion

ThisBuild / organization := "io.txlog"
ThisBuild / version := "0.1.0"
ThisBuild / scalaVersion := line.scalaVersions(scalaBinary)

// Spark 4.3 is on PyPI only: its jars come from the pyspark wheel of that line's virtualenv
// (`make venv-4.3`), or from the folder -Dtxlog.sparkJars names.
def pysparkJars(base: File): Seq[File] =
  if (!line.fromPyPiOnly) Nil
  else {
    val dir = sys.props.get("txlog.sparkJars").map(file).getOrElse(
      base / s".venv-${line.line}" / "lib" / "python3.11" / "site-packages" / "pyspark" / "jars"
    )
    val jars = (dir ** "*.jar").get
    if (jars.isEmpty) {
      sys.error(s"Spark ${line.line}: no Spark jars in $dir; run make venv-${line.line}")
    }
    jars
  }

lazy val root = (project in file("."))
  .settings(
    name := line.artifact,
    moduleName := line.artifact,
    target := line.targetDir(baseDirectory.value, scalaBinary),
    scalacOptions ++= Seq("-deprecation", "-feature", "-unchecked", "-release", "17"),
    javacOptions ++= Seq("--release", "17"),
    // Version-specific code: shim folders shared by ranges of Spark lines.
    Compile / unmanagedSourceDirectories ++=
      line.shims.map(s => baseDirectory.value / "src" / "main" / "shims" / s),
    Test / unmanagedSourceDirectories ++= (if (line.deltaOracle.isEmpty) Nil
                                            else line.shims.map(s =>
                                              baseDirectory.value / "src" / "test" / "shims" / s
                                            )),
    Test / unmanagedSources := {
      val all = (Test / unmanagedSources).value
      val out = TestSources.excluded(line, all)
      all.filterNot(out)
    },
    libraryDependencies ++= Seq("org.scalatest" %% "scalatest" % "3.2.19" % Test) ++
      (if (line.fromPyPiOnly) Nil
       else
         Seq(
           "org.apache.spark" %% "spark-sql" % sparkVersion % Provided,
           // The Connect server's plugin interfaces and messages (txlog.connect), compiled against
           // and never shipped: the server brings them. Its jar holds its dependencies, shaded.
           ("org.apache.spark" %% "spark-connect" % line.connectVersion.getOrElse(sparkVersion) %
             Provided).intransitive()
         )) ++
      // Oracle only: the reference implementation, never a runtime dependency.
      line.deltaOracle.map(_(scalaBinary)).toSeq :+
      // The AWS SDK v2 API that S3A (hadoop-aws 3.4+) brings on a cluster, compiled against for
      // txlog.storage.S3ConditionalPut and never shipped: the oldest release a supported S3A is
      // built with, without its HTTP clients (no netty or httpclient next to Spark's).
      ("software.amazon.awssdk" % "s3" % "2.24.5" % Provided).excludeAll(
        ExclusionRule("io.netty"),
        ExclusionRule("org.apache.httpcomponents"),
        ExclusionRule("software.amazon.awssdk", "netty-nio-client"),
        ExclusionRule("software.amazon.awssdk", "apache-client")
      ) :+
      // And the AWS SDK v1 API of S3A on hadoop-aws 3.3 (Spark 3.5's Hadoop 3.3.4), likewise
      // compiled against and never shipped: the release hadoop-aws 3.3.4 is built with, without
      // its dependencies (txlog uses the S3 client interface, its requests and exceptions).
      // The SDK's Apache HTTP client (on every S3A of SDK v2: its default), for the lean GETs of
      // txlog.storage.S3LeanGet; compiled against alone, its httpclient types never named.
      ("software.amazon.awssdk" % "apache-client" % "2.24.5" % Provided).intransitive() :+
      ("com.amazonaws" % "aws-java-sdk-s3" % "1.12.262" % Provided).intransitive() :+
      ("com.amazonaws" % "aws-java-sdk-core" % "1.12.262" % Provided).intransitive(),
    Compile / unmanagedJars ++= pysparkJars(baseDirectory.value).map(Attributed.blank),
    Test / unmanagedJars ++= pysparkJars(baseDirectory.value).map(Attributed.blank),
    // Spark classes are `provided` at compile time but needed to run tests and the demo.
    Test / fork := true,
    // Lets the forked groups of `Test / testGrouping` run side by side: with false, sbt runs
    // them one after another. Within a forked JVM suites still run one at a time
    // (`testForkedParallel` stays false).
    Test / parallelExecution := true,
    Test / baseDirectory := (ThisBuild / baseDirectory).value,
    // The serial collector: on the 2-core CI machine the two test JVMs and the Python lane
    // already use every core, and G1's concurrent threads cost about an eighth more CPU there
    // (ValidateSuite with RestoreFixturesSuite: 235 s of CPU instead of 267, alone). Both JIT
    // tiers: with the first only (-XX:TieredStopAtLevel=1), two short suites took a tenth less
    // CPU, but in CI's 30-minute test JVMs most suites took 30-60% longer.
    Test / javaOptions ++= Seq("-Xmx4g", "-XX:+UseSerialGC") ++ JvmFlags.sparkOpens,
    Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oDF"),
    // Test knobs given to sbt as -D reach the forked test JVMs: ProcessWritersSuite's commits
    // per writer, RowAgreementSuite's every version, every item of the breadth suites and the
    // fixture agreement suites' share of the fixtures (txlog.testing.Breadth).
    Test / javaOptions ++= Seq(
      "txlog.processWriters",
      "txlog.rowsAllVersions",
      "txlog.breadth",
      "txlog.fixtureShare",
      "txlog.testClaims"
    ).flatMap(k => sys.props.get(k).map(v => s"-D$k=$v")),
    // Each part of `make test` keeps its own JUnit reports: a suite the other JVM ran is reported
    // empty here (txlog.testing.Claimed) and must not replace that JVM's report.
    Test / testReportsDirectory := {
      val reports = target.value / "test-reports"
      sys.props.get("txlog.testPart").fold(reports)(reports / _)
    },
    // Test-scope tools (`make oracle-record`: txlog.oracle.RecordOracles) run forked like tests.
    Test / run / fork := true,
    Test / run / baseDirectory := (ThisBuild / baseDirectory).value,
    // := not ++=: the tests' options (the serial collector) would conflict with G1.
    Test / run / javaOptions := Seq("-Xmx4g", "-XX:+UseG1GC") ++ JvmFlags.sparkOpens,
    // Suites in TestGroups.forks JVMs (-Dtxlog.testForks, default 1) running side by side, in
    // the order of the part -Dtxlog.testPart names (project/TestGroups.scala).
    Test / testGrouping := {
      val tests = (Test / definedTests).value
      val options = (Test / forkOptions).value
      val byName = tests.groupBy(_.name)
      TestGroups.groups(tests.map(_.name)).zipWithIndex.map { case (names, i) =>
        Tests.Group(s"tests-${i + 1}", names.flatMap(byName), Tests.SubProcess(options))
      }
    },
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
      "Spark-Version" -> sparkVersion,
      "Spark-Line" -> line.line,
      "Scala-Binary-Version" -> scalaBinary
    ),
    // Version file read by the Python package to check the jar matches it.
    Compile / resourceGenerators += Def.task {
      val f = (Compile / resourceManaged).value / "txlog" / "version.properties"
      IO.write(
        f,
        s"version=${version.value}\nspark.version=$sparkVersion\nspark.line=${line.line}\n" +
          s"scala.binary=$scalaBinary\n"
      )
      Seq(f)
    }.taskValue
  )
  // The S3 suites run on the lines with hadoop-aws deps (project/TestSources.scala leaves them
  // out elsewhere).
  .settings(line.s3.map(s3TestSettings).getOrElse(Nil))

// The forked test groups of `Test / testGrouping` run at the same time. sbt's default restrictions
// hold `Tags.limit(Tags.ForkedTestGroup, 1)`, and every rule must hold, so adding a higher limit
// beside it changes nothing: the defaults are replaced (the same rules, with this limit instead).
Global / concurrentRestrictions := Seq(
  Tags.limitAll(java.lang.Runtime.getRuntime.availableProcessors.max(TestGroups.forks)),
  Tags.limit(Tags.ForkedTestGroup, TestGroups.forks),
  Tags.exclusiveGroup(Tags.Clean)
)

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
    target := line.targetDir((ThisBuild / baseDirectory).value, scalaBinary) / "bench",
    // As for txlog: provided (the Scala version is the one Spark is built for), on the run
    // classpath through Compile / fullClasspath.
    libraryDependencies ++=
      (if (line.fromPyPiOnly) Nil
       else Seq("org.apache.spark" %% "spark-sql" % sparkVersion % Provided)),
    Compile / unmanagedJars ++= pysparkJars((ThisBuild / baseDirectory).value)
      .map(Attributed.blank),
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
// hadoop-aws of the Hadoop that the line's Spark bundles (project/SparkLine.scala: 3.5, 4.0, 4.1
// and 4.2; not 4.3, which has no delta-spark to compare with) with only the AWS SDK modules S3A
// loads instead of the SDK's bundle (v2: ~600 MB, v1: ~280 MB), and S3Proxy's self-contained jar
// in a hidden configuration of its own (on no classpath): the S3 suites start it as a child JVM
// (txlog.storage.S3Proxy), found through the system property txlog.test.s3proxy.jar. Tests of the conditional create cancel themselves
// where S3A lacks it (Hadoop < 3.4.2).
val s3ProxyVersion = "4.0.0"
lazy val S3ProxyJar = config("s3proxy").hide
def s3TestSettings(deps: S3Deps) = Seq(
  ivyConfigurations += S3ProxyJar,
  libraryDependencies ++= Seq(
    ("org.apache.hadoop" % "hadoop-aws" % deps.hadoopAws % Test)
      .exclude("software.amazon.awssdk", "bundle")
      .exclude("com.amazonaws", "aws-java-sdk-bundle"),
    ("org.gaul" % "s3proxy" % s3ProxyVersion % S3ProxyJar)
      .classifier("jar-with-dependencies")
      .intransitive()
  ) ++ (
    if (deps.sdkV1)
      // hadoop-aws 3.3: the SDK v1's S3 module (with core, KMS and the transfer manager) and
      // DynamoDB's (S3A 3.3 still links S3Guard's exceptions) in place of its ~280 MB bundle.
      // The tests' own client of the server (txlog.storage.S3Proxy) is the SDK v2 txlog compiles
      // against: its HTTP client, which S3A brings on the other lines.
      Seq(
        "com.amazonaws" % "aws-java-sdk-s3" % deps.awsSdk % Test,
        "com.amazonaws" % "aws-java-sdk-dynamodb" % deps.awsSdk % Test,
        "software.amazon.awssdk" % "apache-client" % "2.24.5" % Test
      )
    else
      // s3 brings auth, regions, sdk-core and the apache (sync) and netty (async) HTTP clients.
      // S3A also loads the transfer manager when it starts (and, from hadoop-aws's own
      // dependencies, the analytics accelerator); STS and the rest of the SDK are never loaded.
      // And the SDK v1, which txlog's own client (for S3 file systems that are not S3A) uses.
      Seq(
        "software.amazon.awssdk" % "s3" % deps.awsSdk % Test,
        "software.amazon.awssdk" % "s3-transfer-manager" % deps.awsSdk % Test,
        "com.amazonaws" % "aws-java-sdk-s3" % "1.12.262" % Test
      )
  ),
  Test / javaOptions += {
    val jar = update.value.select(configurationFilter(S3ProxyJar.name)).head
    s"-Dtxlog.test.s3proxy.jar=$jar"
  },
  // Commits per writer of the on-demand S3 process race (`make test-s3-race`).
  Test / javaOptions ++= sys.props.get("txlog.s3ProcessRace").map(n => s"-Dtxlog.s3ProcessRace=$n")
)
