import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

import sbt._

/** Which test sources a Spark line compiles. A line without a delta-spark oracle leaves out every
  * suite that uses delta-spark, directly or through another test source; a line whose oracle lacks
  * what a suite compares with leaves that suite out by name; the S3 suites run on the lines whose
  * hadoop-aws the build knows ([[SparkLine.s3]]).
  */
object TestSources {
  private val DeltaSpark = Seq("org.apache.spark.sql.delta", "io.delta")

  /** The S3 suites and their server: hadoop-aws and the AWS SDK are test dependencies of the lines
    * with [[SparkLine.s3]] only (each line's hadoop-aws must match the Hadoop its Spark bundles).
    */
  private def S3(name: String): Boolean = name.startsWith("S3") && name.endsWith(".scala")
  private val Defined =
    """(?m)^\s*(?:final\s+|private\s+|case\s+)*(?:object|class|trait)\s+(\w+)""".r

  /** The suites a build compiles, when `-Dtxlog.testSuites=<simple names, comma-separated>` names
    * them (the Spark 3.5 run of `make test` compiles only its three suites): the files that define
    * them, and every file defining a name those files use, transitively. Empty: every suite.
    */
  private val onlySuites: Set[String] =
    sys.props
      .get("txlog.testSuites")
      .toSeq
      .flatMap(_.split(','))
      .map(_.trim)
      .filter(_.nonEmpty)
      .toSet

  /** The files of `sources` a build of only `suites` needs (see [[onlySuites]]). */
  private def needed(suites: Set[String], sources: Seq[File]): Set[File] = {
    val text = sources.map(f => f -> new String(Files.readAllBytes(f.toPath), UTF_8)).toMap
    val defines = sources.map(f => f -> Defined.findAllMatchIn(text(f)).map(_.group(1)).toSet).toMap
    val words = sources.map(f => f -> "\\w+".r.findAllIn(text(f)).toSet).toMap
    var in = sources.filter(f => defines(f).exists(suites)).toSet
    var grew = true
    while (grew) {
      val used = in.flatMap(words)
      val more = sources.filterNot(in).filter(f => defines(f).exists(used))
      grew = more.nonEmpty
      in ++= more
    }
    in
  }

  /** The files of `sources` that `line` leaves out. */
  def excluded(line: SparkLine, sources: Seq[File]): Set[File] =
    byLine(line, sources) ++
      (if (onlySuites.isEmpty) Set.empty[File] else sources.toSet -- needed(onlySuites, sources))

  private def byLine(line: SparkLine, sources: Seq[File]): Set[File] = {
    val byName = sources.filter { f =>
      line.testExcludes.contains(f.getName) || (line.s3.isEmpty && S3(f.getName))
    }.toSet
    if (line.deltaOracle.isDefined) byName
    else {
      val text = sources.map(f => f -> new String(Files.readAllBytes(f.toPath), UTF_8)).toMap
      var out = sources.filter(f => DeltaSpark.exists(text(f).contains)).toSet ++ byName
      var grew = true
      while (grew) {
        val names = out.flatMap(f => Defined.findAllMatchIn(text(f)).map(_.group(1)))
        val more = sources.filterNot(out).filter { f =>
          names.exists(n => s"\\b$n\\b".r.findFirstIn(text(f)).isDefined)
        }
        grew = more.nonEmpty
        out ++= more
      }
      out
    }
  }
}
