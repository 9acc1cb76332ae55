package txlog.oracle

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}

import scala.io.Source
import scala.jdk.CollectionConverters._
import scala.util.{Failure, Random, Success, Try}

import com.fasterxml.jackson.databind.JsonNode

import txlog.{Fixtures, SnapshotView}

/** delta-spark's answers on the read-only fixtures, recorded once by `make oracle-record`
  * ([[RecordOracles]]) into `src/test/resources/oracle/delta-spark-<version>.jsonl`: the latest
  * snapshot of every fixture table and every version of the tables time travel is checked on, each
  * a [[SnapshotView]] or a [[RecordedRefusal]], and delta-spark's RESTORE of a few of them
  * ([[RecordedRestore]]).
  *
  * The first line stamps the recording: the delta-spark and Spark versions that answered and the
  * digest of each fixture table ([[FixtureDigest]]). A recording is used only when its stamp
  * matches the running delta-spark and the fixtures present; otherwise every test that asks for it
  * fails, naming what differs. Each suite that reads recorded answers also re-runs a sample of them
  * live ([[Recording.sample]]).
  */
final class Recording(
    val header: JsonNode,
    answers: Map[(String, Option[Long]), JsonNode],
    restores: Map[(String, Long), JsonNode],
    root: String
) {

  /** The recorded answer for `table` at `version` (the latest when None). */
  def answer(table: String, version: Option[Long]): Try[SnapshotView] =
    answers.get((table, version)) match {
      case None =>
        throw new NoSuchElementException(
          s"no recorded delta-spark answer for $table at ${version.fold("latest")("v" + _)}: " +
            Recording.Hint
        )
      case Some(a) if a.has("view")    => Success(ViewCodec.decode(a.get("view"), root))
      case Some(a) if a.has("refusal") => Failure(ViewCodec.decodeRefusal(a.get("refusal")))
      case Some(a)                     => throw new IllegalStateException(s"bad entry: $a")
    }

  def versionsOf(table: String): Seq[Long] =
    answers.keys.collect { case (`table`, Some(v)) => v }.toSeq.sorted

  /** The versions delta-spark's restores of `table` were recorded for, lowest first. */
  def restoreTargets(table: String): Seq[Long] =
    restores.keys.collect { case (`table`, v) => v }.toSeq.sorted

  /** delta-spark's recorded RESTORE of a copy of `table` to `version` (or its refusal). */
  def restore(table: String, version: Long): Try[RecordedRestore] =
    restores.get((table, version)) match {
      case None =>
        throw new NoSuchElementException(
          s"no recorded delta-spark restore of $table to v$version: ${Recording.Hint}"
        )
      case Some(a) => RecordedRestore.decode(a)
    }
}

object Recording {
  val Hint = "run `make oracle-record` to record the oracles' answers for the fixtures present"

  /** The running delta-spark's version (the oracle on the test classpath). */
  def oracleVersion: String = io.delta.VERSION

  def resourceName(version: String = oracleVersion): String = s"oracle/delta-spark-$version.jsonl"

  /** Where `make oracle-record` writes the recording of `version`, from the project root. */
  def sourceFile(base: Path, version: String = oracleVersion): Path =
    base.resolve("src/test/resources").resolve(resourceName(version))

  /** The fixtures' root as paths are qualified in a [[SnapshotView]]. */
  def qualifiedRoot(root: Path): String = "file:" + root.toAbsolutePath.normalize.toUri.getPath
    .stripSuffix("/")

  private[oracle] def lines(): Seq[String] = {
    val in = getClass.getClassLoader.getResourceAsStream(resourceName())
    if (in == null) {
      throw new IllegalStateException(
        s"no recording of delta-spark $oracleVersion's answers (src/test/resources/" +
          s"${resourceName()}): $Hint"
      )
    }
    val s = Source.fromInputStream(in, UTF_8.name)
    try s.getLines().filter(_.nonEmpty).toVector
    finally s.close()
  }

  /** The recording, parsed, or an error that says why it cannot be used here. */
  def parse(text: Seq[String], fixturesRoot: Path): Recording = {
    val header = ViewCodec.mapper.readTree(text.head)
    val recorded = header.get("oracleVersion").asText
    if (recorded != oracleVersion) {
      throw new IllegalStateException(
        s"the recording holds delta-spark $recorded's answers, the oracle here is " +
          s"$oracleVersion: $Hint"
      )
    }
    verifyStamp(header, fixturesRoot)
    val (restoreLines, snapshotLines) =
      text.tail.map(l => ViewCodec.mapper.readTree(l)).partition(_.has("restoreTo"))
    val answers = snapshotLines.map { a =>
      val v = a.get("version")
      (a.get("table").asText, if (v.isNull) None else Some(v.asLong)) -> a
    }.toMap
    val restores =
      restoreLines.map(a => (a.get("table").asText, a.get("restoreTo").asLong) -> a).toMap
    new Recording(header, answers, restores, qualifiedRoot(fixturesRoot))
  }

  /** Fails, naming each table that changed, appeared or vanished, unless the fixtures under
    * `fixturesRoot` are those the recording was made of.
    */
  def verifyStamp(header: JsonNode, fixturesRoot: Path): Unit = {
    val recorded =
      header.get("tables").fields().asScala.map(e => e.getKey -> e.getValue.asText).toMap
    val present = FixtureDigest.ofTables(fixturesRoot, tablesUnder(fixturesRoot))
    if (FixtureDigest.combined(present) != header.get("fixturesDigest").asText) {
      val changed = present.keySet.intersect(recorded.keySet).filter(t => present(t) != recorded(t))
      val added = present.keySet -- recorded.keySet
      val gone = recorded.keySet -- present.keySet
      def list(what: String, ts: Set[String]) =
        if (ts.isEmpty) None else Some(s"$what: ${ts.toSeq.sorted.mkString(", ")}")
      val diff =
        Seq(list("changed", changed), list("not recorded", added), list("gone", gone)).flatten
          .mkString("; ")
      throw new IllegalStateException(
        s"the recorded delta-spark answers do not match the fixtures at $fixturesRoot " +
          s"(${if (diff.isEmpty) "the digest differs" else diff}): $Hint"
      )
    }
  }

  /** Every folder under `root` holding a `_delta_log`, as [[Fixtures.tables]] finds them. */
  def tablesUnder(root: Path): Seq[String] = {
    val walk = Files.walk(root)
    try
      walk
        .iterator()
        .asScala
        .filter(p => p.getFileName.toString == "_delta_log" && Files.isDirectory(p))
        .map(p => root.relativize(p.getParent).iterator().asScala.mkString("/"))
        .toVector
        .sorted
    finally walk.close()
  }

  /** Writes a recording of delta-spark's `entries` (JSON lines) to `out`, after a header that
    * stamps it with the oracle's, Spark's and Scala's versions and the fixtures present.
    */
  def write(out: Path, spark: org.apache.spark.sql.SparkSession, entries: Seq[String]): Unit = {
    val digests = FixtureDigest.ofTables(Fixtures.root, tablesUnder(Fixtures.root))
    val header = ViewCodec.mapper.createObjectNode()
    header
      .put("format", 1)
      .put("oracle", "delta-spark")
      .put("oracleVersion", oracleVersion)
      .put("sparkVersion", spark.version)
      .put("scalaVersion", scala.util.Properties.versionNumberString)
      .put("fixturesDigest", FixtureDigest.combined(digests))
    val t = header.putObject("tables")
    digests.toSeq.sortBy(_._1).foreach { case (k, d) => t.put(k, d) }
    Files.createDirectories(out.getParent)
    val text = (ViewCodec.mapper.writeValueAsString(header) +: entries).mkString("\n")
    Files.write(out, (text + "\n").getBytes(UTF_8))
  }

  private lazy val loaded: Try[Recording] = Try(parse(lines(), Fixtures.root))

  /** The recording for the running oracle and the shared fixtures (read and checked once). */
  def current: Recording = loaded.get

  /** The seed of this run's samples: `TXLOG_ORACLE_SEED`, or the day's number (UTC), so that reruns
    * on a day re-check the same sample and each day checks another.
    */
  val seed: Long = sys.env
    .get("TXLOG_ORACLE_SEED")
    .map(_.toLong)
    .getOrElse(java.time.LocalDate.now(java.time.ZoneOffset.UTC).toEpochDay)

  /** `n` of `items`, drawn with [[seed]] (salted, so that suites draw different ones). */
  def sample[A](items: Seq[A], n: Int, salt: String): Seq[A] =
    new Random(seed ^ salt.hashCode.toLong).shuffle(items).take(n)
}
