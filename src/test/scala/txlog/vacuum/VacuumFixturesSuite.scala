package txlog.vacuum

import scala.util.{Failure, Success}

import txlog.{Fixtures, SparkSuite}

/** VACUUM's dry run on copies of the shared fixtures (written by delta-spark and Delta Kernel;
  * their files keep their years-old times, so the table's default 7 days apply): txlog would delete
  * exactly what delta-spark's VACUUM ... DRY RUN would, in full and lite mode, or both refuse the
  * table. The full dry run runs both ways, on the driver and by Spark jobs ([[VacuumTestKit]]).
  */
class VacuumFixturesSuite extends SparkSuite with VacuumTestKit {
  override def extraConf: Map[String, String] = vacuumConf
  private val Day = 24L * 3600 * 1000

  // One table per shape vacuum meets (tombstones, a re-added file, escaped and absolute paths,
  // partitions, deletion vectors with and without column mapping, v2 checkpoints, a deleted
  // directory): each costs delta-spark two dry runs of about 4 s, and four tables of shapes
  // already here were dropped when the suite took 121 s of a 26-minute CI run. `make test`
  // vacuums the first and half of the others, which half rotating by day (txlog.testing.Breadth:
  // the 11 took 108 s of a 35-minute run); `make test-breadth` every one.
  private val shapes = Seq(
    "golden/basic-with-inserts-deletes-checkpoint",
    "golden/data-reader-partition-values",
    "golden/data-reader-absolute-paths-escaped-chars",
    "golden/canonicalized-paths-special-a",
    "golden/delete-re-add-same-file-different-transactions",
    "golden/dv-partitioned-with-checkpoint",
    "golden/dv-with-columnmapping",
    "golden/update-deleted-directory",
    "golden/v2-checkpoint-parquet",
    "spark/table-with-dv-small",
    "spark/table-with-dv-special-char"
  )

  private val tables =
    txlog.testing.Breadth.share(shapes, 2, "VacuumFixturesSuite")(_ == shapes.head)

  tables.foreach { name =>
    test(s"$name: full and lite dry runs agree with delta-spark") {
      assume(Fixtures.available, Fixtures.skipMessage)
      val t = ageAll(Fixtures.copy(name, tempDir()), 30 * Day)
      Seq(false, true).foreach { lite =>
        val onDriver = driverDryRuns
        (refDryRun(t, None, lite), ourDryRun(t, None, lite)) match {
          case (Success(r), Success(o)) =>
            assert(o === r, s"lite=$lite: txlog ${o -- r} extra, ${r -- o} missing")
            info(s"lite=$lite: ${o.size} files")
            // a small table's full vacuum ran on the driver, and by Spark jobs (ourDryRun)
            if (!lite) assert(driverDryRuns === onDriver + 1, "the full one ran a job")
          case (Failure(_), Failure(_)) => info(s"lite=$lite: both refuse")
          case other                    => fail(s"lite=$lite: $other")
        }
      }
    }
  }
}
