package txlog.scan

import scala.util.{Failure, Success, Try}

import org.apache.spark.sql.DataFrame

import txlog.{DeltaLog, Fixtures, SparkSuite, TxlogException}
import txlog.oracle.{Recording, RecordedRowsRefusal, RowsAnswer, RowsRecording}

/** Every fixture table's rows, read by txlog, equal delta-spark's rows (the reference
  * implementation): the same column names and types in the same order, and the same rows as a
  * multiset (their count and the digest of the sorted rows, [[RowsAnswer]]). Where delta-spark
  * refuses to read, txlog refuses too, with a typed error.
  *
  * delta-spark's answers are recorded ([[RowsRecording]]: every table at its latest version and at
  * every version its log names). Each run checks every table's latest version, a sample of the
  * earlier versions drawn with [[Recording.seed]] (all of them with
  * `-Dtxlog.rowsAllVersions=true`), and re-asks delta-spark live for a few.
  */
class RowAgreementSuite extends SparkSuite {
  private var agree, bothRefuse = 0

  /** Earlier versions checked per run (of about 300). */
  private val EarlierPerRun = 40

  private def recording = RowsRecording.current

  if (!Fixtures.available) test("rows agree with delta-spark")(cancel(Fixtures.skipMessage))

  private lazy val earlier: Seq[(String, Option[Long])] = {
    val all = recording.keys.filter(_._2.isDefined)
    if (sys.props.get("txlog.rowsAllVersions").contains("true")) all
    else Recording.sample(all, EarlierPerRun, suiteName).sortBy(k => (k._1, k._2))
  }

  txlog.testing.Breadth.fixtures(Fixtures.tables, suiteName).foreach { name =>
    test(s"rows agree with delta-spark at the latest version: $name") {
      check(name, None, recording.answer(name, None))
    }
  }

  if (Fixtures.available) {
    test(s"rows agree with delta-spark at earlier versions ($EarlierPerRun drawn)") {
      info(s"seed ${Recording.seed} (TXLOG_ORACLE_SEED): ${earlier.mkString(", ")}")
      earlier.foreach { case (name, v) =>
        withClue(s"$name at v${v.get}: ")(check(name, v, recording.answer(name, v)))
      }
    }

    test("recorded delta-spark rows agree with delta-spark now (3 drawn)") {
      val drawn = Recording.sample(recording.keys, 3, suiteName + "-live")
      info(s"seed ${Recording.seed}: ${drawn.mkString(", ")}")
      drawn.foreach { case (name, v) =>
        (recording.answer(name, v), RowsAnswer.deltaSpark(spark, name, v)) match {
          case (Success(recorded), Success(now)) => assert(recorded === now, s"$name $v")
          case (Failure(_), Failure(_))          => ()
          case (recorded, now) => fail(s"$name $v: recorded $recorded, delta-spark now $now")
        }
      }
    }
  }

  private def read(name: String, version: Option[Long]): DataFrame = {
    val log = DeltaLog.forTable(spark, Fixtures.path(name))
    version.fold(log.read())(log.read)
  }

  private def check(name: String, version: Option[Long], ref: Try[RowsAnswer]): Unit = {
    val ours = Try(RowsAnswer.of(read(name, version)))
    (ours, ref) match {
      case (Success(o), Success(r)) =>
        assert(o.schema === r.schema)
        assert(o.count === r.count)
        assert(o.head === r.head)
        assert(o.digest === r.digest)
        agree += 1
      case (Success(o), Failure(r)) if noColumns(r) && o.schema.isEmpty =>
        info(s"no columns: delta-spark refuses to read such a table, txlog reads ${o.count} rows")
        bothRefuse += 1
      case (Failure(e), Failure(r)) =>
        assert(typed(e).isDefined, s"txlog refuses with an untyped error: $e")
        info(s"both refuse: txlog ${typed(e).get.errorClass}; delta-spark: ${r.getMessage}")
        bothRefuse += 1
      case (Failure(e), Success(_)) => fail(s"txlog refuses rows delta-spark reads: $e", e)
      case (Success(_), Failure(r)) => fail(s"txlog reads rows delta-spark refuses: $r", r)
    }
  }

  private def noColumns(e: Throwable): Boolean =
    e.isInstanceOf[RecordedRowsRefusal] && e.getMessage.contains("DELTA_READ_TABLE_WITHOUT_COLUMNS")

  /** The TxlogException on the cause chain (a task's error arrives wrapped by Spark). */
  private def typed(e: Throwable): Option[TxlogException] = txlog.testing.Causes.txlog(e)

  override def afterAll(): Unit = {
    try info(s"row agreement: $agree agree, $bothRefuse both refuse")
    finally super.afterAll()
  }
}
