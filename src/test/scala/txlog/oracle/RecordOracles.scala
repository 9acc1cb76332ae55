package txlog.oracle

import java.nio.file.{Path, Paths}

import scala.util.{Failure, Success, Try}

import com.fasterxml.jackson.databind.JsonNode

import txlog.{Fixtures, Oracle, Refusal, TestSpark}

/** Records delta-spark's answers on the shared fixtures ([[Recording]]): `make oracle-record` runs
  * it on each Spark line whose oracle `make test` reads (`Test/runMain txlog.oracle.RecordOracles
  * [project root]`).
  *
  * Answers: the latest snapshot of every fixture table, and the snapshot at every version from the
  * lowest to the highest version its `_delta_log` names for the tables time travel is checked on
  * ([[RecordOracles.timeTravelTables]]), and its RESTORE of a few fixtures ([[RecordedRestore]]). A
  * refusal is recorded as its [[Refusal]] category.
  */
object RecordOracles {

  /** The fixtures whose every version is compared (TimeTravelAgreementSuite): those with several
    * versions, checkpoints of each kind, or a damaged `_last_checkpoint`.
    */
  def timeTravelTables(tables: Seq[String]): Seq[String] = tables.filter(t =>
    Seq(
      "time-travel-",
      "snapshot-",
      "spark/history",
      "golden/checkpoint",
      "basic-with-inserts-deletes-checkpoint",
      "multi-part-checkpoint",
      "v2-checkpoint",
      "kernel-pagination",
      "only-checkpoint-files",
      "corrupted-last-checkpoint"
    ).exists(t.contains)
  )

  /** The versions a table's `_delta_log` names (commits, checkpoints, compactions), lowest to
    * highest: read from the file names here, not by txlog.
    */
  def loggedVersions(table: Path): Seq[Long] = {
    val names = Option(table.resolve("_delta_log").toFile.list()).toSeq.flatten
    val versions = names.flatMap(n => "^(\\d{20})\\.".r.findFirstMatchIn(n).map(_.group(1).toLong))
    if (versions.isEmpty) Nil else versions.min to versions.max
  }

  def main(args: Array[String]): Unit = {
    val base = Paths.get(args.headOption.getOrElse(".")).toAbsolutePath.normalize
    require(Fixtures.available, Fixtures.skipMessage)
    val spark = TestSpark.open(Map.empty)
    val tables = Recording.tablesUnder(Fixtures.root)
    val root = Recording.qualifiedRoot(Fixtures.root)
    def entry(table: String, version: Option[Long], answer: Try[txlog.SnapshotView]): String = {
      val o = ViewCodec.mapper.createObjectNode()
      o.put("table", table)
      version.fold(o.putNull("version"))(v => o.put("version", v))
      answer match {
        case Success(view) => o.set[JsonNode]("view", ViewCodec.encode(view, root))
        case Failure(e) =>
          val cause = String.valueOf(e.getMessage).linesIterator.take(1).mkString.take(300)
          o.set[JsonNode](
            "refusal",
            ViewCodec.encodeRefusal(RecordedRefusal(Refusal.ofDeltaSpark(e), cause))
          )
      }
      ViewCodec.mapper.writeValueAsString(o)
    }
    val latestAnswers = tables.map(t => t -> Oracle.liveFixtureReference(spark, t)).toMap
    val latest = tables.map(t => entry(t, None, latestAnswers(t)))
    val versions = timeTravelTables(tables).flatMap { t =>
      val vs = loggedVersions(Fixtures.root.resolve(t))
      vs.zip(Oracle.references(spark, Fixtures.path(t), vs)).map { case (v, a) =>
        entry(t, Some(v), a)
      }
    }
    val restores = RecordedRestore.tables.flatMap { t =>
      val targets = latestAnswers(t).map(v => RecordedRestore.targets(v.version)).getOrElse(Nil)
      targets.map { v =>
        ViewCodec.mapper.writeValueAsString(
          RecordedRestore.entry(t, v, RecordedRestore.live(spark, t, v))
        )
      }
    }
    Recording.write(Recording.sourceFile(base), spark, latest ++ versions ++ restores)
    val n = latest.size + versions.size + restores.size
    System.err.println(s"recorded $n delta-spark answers in ${Recording.sourceFile(base)}")
    TestSpark.close(spark)
  }
}
