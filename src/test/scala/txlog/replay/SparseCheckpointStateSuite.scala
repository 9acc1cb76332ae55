package txlog.replay

import scala.util.Try

import txlog.{DeltaLog, Fixtures, Snapshot, SparkSuite}
import txlog.config.TxlogConf
import txlog.testing.JobDescriptions

/** A checkpoint too large to read whole on the driver has its few rows of state (protocol,
  * metadata, transactions, domain metadata, sidecars) read there from the row groups its footers
  * say may hold them ([[SparseCheckpointState.sparseNonFileRows]]), without the job that would read
  * them: the same state as the whole checkpoint read on the driver gives, on every fixture with a
  * parquet checkpoint (each read as if it were too large: a driver budget of 1 byte), and no job
  * named for it.
  */
class SparseCheckpointStateSuite extends SparkSuite {

  private def state(s: Snapshot): Seq[Any] = Seq(
    s.version,
    s.checkpointVersion,
    s.protocol,
    s.metadata,
    s.setTransactions,
    s.domainMetadata,
    s.timestamp
  )

  test(
    "every fixture's checkpoint state, from its row groups: the whole checkpoint's"
  ) {
    assume(Fixtures.available, Fixtures.skipMessage)
    val budget = TxlogConf.ReplayMaxDriverCheckpointBytes.key
    val strict = TxlogConf.TestingDriverCheckpointStrict.key
    var compared = 0
    def hasParquetCheckpoint(path: String): Boolean = {
      val log = new java.io.File(path, "_delta_log")
      Option(log.list()).exists(_.exists(_.matches("""\d{20}\.checkpoint.*\.parquet""")))
    }
    Fixtures.tables.filter(n => hasParquetCheckpoint(Fixtures.path(n))).foreach { name =>
      val path = Fixtures.path(name)
      // as the whole checkpoint read on the driver gives it (FixtureAgreementSuite compares
      // that with delta-spark's)
      val expected = Try(DeltaLog.forTable(spark, path).snapshot()).toOption.map(s => s -> state(s))
      expected.filter(_._1.checkpointVersion.isDefined).foreach { case (_, want) =>
        val (got, jobs) = withConf(budget -> "1", strict -> "true") {
          JobDescriptions.of(spark)(state(DeltaLog.forTable(spark, path).snapshot()))
        }
        assert(got === want, name)
        val jsonCheckpoint = Try(DeltaLog.forTable(spark, path).snapshot()).toOption
          .flatMap(_.segment.checkpoint)
          .exists(cp => cp.isJson || cp.files.size > 4)
        if (!jsonCheckpoint) {
          assert(!jobs.exists(_.contains("read protocol and metadata")), s"$name: $jobs")
          compared += 1
        }
      }
    }
    info(s"compared on $compared fixtures with a parquet checkpoint")
    assert(compared >= 20)
  }
}
