package txlog.checkpoint

import scala.util.{Failure, Success, Try}

import txlog.{DeltaLog, Fixtures, Oracle, Refusal, SnapshotView, SparkSuite, TxlogException}
import txlog.log.{LogListing, LogSegment}
import txlog.protocol.CheckpointNaming
import txlog.testing.Breadth

/** For every fixture, each checkpoint kind txlog can write yields, once written, the same snapshot
  * through txlog and through delta-spark as the table had before, and both read it from the new
  * checkpoint. Each kind is written on its own copy of the table.
  *
  * The fixtures are dealt out to [[CheckpointRoundTripSuite]] and [[CheckpointRoundTripSuite2]]
  * (`part` of 2), so that the forked test JVMs can run the halves side by side. `make test` round
  * trips a third of the fixtures, which third rotating by day ([[Breadth]]: three days' runs cover
  * every fixture; every fixture at every run until these suites were two of the three longest of a
  * 35-minute CI run, 520 s of it); `make test-breadth` every one. `TXLOG_FIXTURES` (a regex)
  * narrows the fixtures, for local runs.
  */
abstract class CheckpointRoundTrips(part: Int, parts: Int = 2)
    extends SparkSuite
    with txlog.oracle.LiveSample {
  private var written = Map.empty[String, Int].withDefaultValue(0)
  private var refused = 0
  private var askedReference = 0

  private val only = sys.env.get("TXLOG_FIXTURES").map(_.r)
  private val tables = Breadth
    .share(Fixtures.tables, 3, "CheckpointRoundTrips")(_ => false)
    .zipWithIndex
    .collect {
      case (t, i) if i % parts == part - 1 && only.forall(_.findFirstIn(t).isDefined) => t
    }

  if (!Fixtures.available) test("checkpoint round trips")(cancel(Fixtures.skipMessage))

  /** The kinds to write on table `i`: the spec allows multi-part only without v2Checkpoint; the
    * multi-part checkpoint (the classic one's rows split in parts) on every fourth table.
    */
  private def kinds(v2Table: Boolean, i: Int): Seq[(String, Map[String, String])] =
    if (v2Table) {
      Seq(
        "classic" -> Map.empty,
        "v2" -> Map.empty,
        "v2" -> Map("format" -> "json", "sidecars" -> "false")
      )
    } else if (i % 4 == 0) Seq("classic" -> Map.empty, "multipart" -> Map("parts" -> "3"))
    else Seq("classic" -> Map.empty)

  private def label(kind: String, o: Map[String, String]) =
    (kind +: o.toSeq.sorted.map { case (k, v) => s"$k=$v" }).mkString(" ")

  // The expected snapshot is delta-spark's of the fixture, as recorded (FixtureAgreementSuite
  // checks that txlog reads the same); what is read after the checkpoint is asked of delta-spark
  // now.
  //
  // delta-spark reads back every checkpoint of a table with v2 checkpoints (each kind encodes the
  // actions its own way) and the classic one of half the tables, which half drawn with the day's
  // number (Recording.seed, TXLOG_ORACLE_SEED: two days' runs ask of every table; every table at
  // every run until these suites were the longest of a 37-minute CI run); the multi-part
  // checkpoint, the same rows as the classic one split into parts, is written on every fourth
  // table (every other one until the suites were the longest of a 26-minute CI run: the parts'
  // writer is the classic one's, cut by row count) and read back by delta-spark on every twelfth.
  // txlog reads back every one. With every fixture (`make test-breadth`), delta-spark reads back
  // every checkpoint.
  private val half = Math.floorMod(txlog.oracle.Recording.seed, 2L)
  tables.zipWithIndex.foreach { case (name, i) =>
    test(s"checkpoints read back the same through txlog and delta-spark: $name") {
      Oracle.fixtureReference(name) match {
        case Success(before) =>
          val v2Table = before.protocol._4.contains("v2Checkpoint")
          kinds(v2Table, i).foreach { case (kind, options) =>
            val ask =
              Breadth.full || v2Table || i % 12 == 0 || (kind == "classic" && i % 2 == half)
            roundTrip(name, kind, options, before, ask)
          }
        case Failure(ref) =>
          Try(Oracle.txlog(spark, Fixtures.path(name), None)) match {
            case Failure(ours: TxlogException) =>
              Refusal.assertSame(ours, ref, name)
              val dir = Fixtures.copy(name, tempDir())
              val e =
                intercept[TxlogException](DeltaLog.forTable(spark, dir.toString).checkpoint())
              assert(e.errorClass === ours.errorClass)
              refused += 1
            case ours => fail(s"delta-spark refuses ($ref) where txlog gives $ours")
          }
      }
    }
  }

  if (Fixtures.available) sampleLive(tables.map(_ -> None), 1)

  private def roundTrip(
      name: String,
      kind: String,
      options: Map[String, String],
      before: SnapshotView,
      askReference: Boolean
  ): Unit = {
    tableName = java.nio.file.Paths.get(name).getFileName.toString
    val dir = Fixtures.copy(name, tempDir()).toString
    // Checkpoints the fixture already has of this version would be read instead of ours.
    val prefix = f"${before.version}%020d.checkpoint."
    new java.io.File(dir, "_delta_log")
      .listFiles()
      .filter(_.getName.startsWith(prefix))
      .foreach(f => assert(f.delete()))
    val log = DeltaLog.forTable(spark, dir)
    val result = Try(log.checkpoint(None, Some(kind), options)) match {
      case Success(r) => r
      case Failure(e: TxlogException) if e.errorClass == "UNSUPPORTED_WRITER_FEATURES" =>
        info(s"${label(kind, options)}: refused (${e.problem})")
        return
      case Failure(e) => throw e
    }
    assert(result.version === before.version)
    assert(result.numAddFiles === before.live.size)
    assert(result.numRemoveFiles === before.tombstones.size)

    val listing = LogListing.list(log.table)
    val segment = LogSegment.build(listing, None)
    assert(
      segment.checkpoint.map(_.version) === Some(before.version),
      s"${label(kind, options)}: the new checkpoint is not used"
    )
    val naming = segment.checkpoint.get.naming
    kind match {
      case "classic"   => assert(naming === CheckpointNaming.Classic)
      case "multipart" => assert(naming === CheckpointNaming.MultiPart(1, 3))
      case "v2"        => assert(naming.isInstanceOf[CheckpointNaming.Uuid])
    }
    assert(listing.lastCheckpoint.map(_.version) === Some(before.version))

    same(
      s"txlog after a ${label(kind, options)} checkpoint",
      Oracle.txlog(spark, dir, None),
      before
    )
    if (askReference) {
      val ref = Oracle.reference(spark, dir, None)
      same(s"delta-spark after a ${label(kind, options)} checkpoint", ref, before)
      askedReference += 1
    }
    if (kind == "multipart") assert(result.files.size === 3)
    written = written.updated(kind, written(kind) + 1)
  }

  /** Field by field, so a failure says what differs. */
  private def same(what: String, gotView: SnapshotView, wantView: SnapshotView): Unit = {
    val (got, want) = (relative(gotView), relative(wantView))
    assert(got.version === want.version, what)
    assert(got.protocol === want.protocol, what)
    assert(got.metadata === want.metadata, what)
    assert(got.live === want.live, what)
    assert(got.tombstones === want.tombstones, what)
    assert(got.txns === want.txns, what)
    assert(got.domains === want.domains, what)
  }

  /** The view with paths under the table root made relative (copies live elsewhere). */
  private def relative(v: SnapshotView): SnapshotView = {
    def rel(p: String): String = p.replaceFirst(
      "^file:/.*?/" +
        java.util.regex.Pattern.quote(tableName) + "/",
      ""
    )
    v.copy(
      live = v.live.map(f => f.copy(_1 = rel(f._1))),
      tombstones = v.tombstones.map(t => t.copy(_1 = rel(t._1)))
    )
  }
  @volatile private var tableName = ""

  override def afterAll(): Unit = {
    try {
      if (Fixtures.available) {
        info(
          s"checkpoints written and read back: ${written.toSeq.sorted.mkString(", ")} " +
            s"(by delta-spark too: $askedReference); " +
            s"$refused tables refused by both replays were refused by the writer too"
        )
      }
    } finally super.afterAll()
  }
}

class CheckpointRoundTripSuite extends CheckpointRoundTrips(1)

class CheckpointRoundTripSuite2 extends CheckpointRoundTrips(2)
