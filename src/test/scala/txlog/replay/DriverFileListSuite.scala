package txlog.replay

import scala.util.Try

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.catalyst.plans.logical.LocalRelation

import txlog.{DeltaLog, Fixtures, SparkSuite}
import txlog.testing.JobDescriptions

/** The file list of a small table whose log the driver read, built there ([[DriverFileList]]), is
  * the one Spark's plan over the same snapshot gives: the same schema, to the nullability of every
  * field, and the same rows, typed partition values and parsed statistics included, on every
  * fixture of commits only and every fixture whose checkpoint (and V2 sidecars) the driver read.
  * Collecting it runs no Spark job.
  */
class DriverFileListSuite extends SparkSuite {

  test("on every small fixture, with or without a checkpoint: Spark's rows, without a job") {
    assume(Fixtures.available, Fixtures.skipMessage)
    var compared = Map(false -> 0, true -> 0)
    Fixtures.tables.foreach { name =>
      Try(DeltaLog.forTable(spark, Fixtures.path(name)).snapshot()).toOption.foreach { s =>
        val local = s.allFiles
        if (local.queryExecution.analyzed.isInstanceOf[LocalRelation]) {
          val planned = s.plannedAllFiles
          assert(local.schema === planned.schema, name)
          val (rows, jobs) = JobDescriptions.of(spark)(local.collect().toSeq)
          assert(jobs.isEmpty, s"$name: $jobs")
          val expected = planned.collect().toSeq
          assert(rows.map(_.toString).sorted === expected.map(_.toString).sorted, name)
          // marked analyzed (no analyzer rules run for it); a query over it is analyzed as ever
          assert(local.queryExecution.logical.analyzed, name)
          def query(df: DataFrame) =
            df.where("size >= 0").select("path", "partitionValues_parsed").collect().toSeq
          assert(query(local).map(_.toString).sorted === query(planned).map(_.toString).sorted)
          val checkpointed = s.checkpointVersion.isDefined
          compared += checkpointed -> (compared(checkpointed) + 1)
        }
      }
    }
    info(s"compared: ${compared(false)} fixtures of commits, ${compared(true)} with a checkpoint")
    assert(compared(false) >= 50, "most fixtures are small logs of commits")
    assert(compared(true) >= 20, "many have a small checkpoint")
  }

  test("past the file budget, the list is Spark's plan") {
    assume(Fixtures.available, Fixtures.skipMessage)
    // one commit of more files than the budget
    val t = tempDir().resolve("t")
    val schema = """{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,""" +
      """"metadata":{}}]}"""
    val head = Seq(
      """{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}""",
      """{"metaData":{"id":"t","format":{"provider":"parquet","options":{}},"schemaString":""" +
        new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(schema) +
        ""","partitionColumns":[],"configuration":{}}}"""
    )
    val adds = (0 to DriverFileList.MaxFiles).map { i =>
      s"""{"add":{"path":"f$i.parquet","partitionValues":{},"size":1,"modificationTime":1,""" +
        """"dataChange":true}}"""
    }
    java.nio.file.Files.createDirectories(t.resolve("_delta_log"))
    // The implicit conversion, which Scala 2.12's collection-compat also offers.
    import scala.jdk.CollectionConverters._
    java.nio.file.Files.write(
      t.resolve("_delta_log").resolve("00000000000000000000.json"),
      (head ++ adds).asJava
    )
    val s = DeltaLog.forTable(spark, t.toString).snapshot()
    assert(s.checkpointVersion.isEmpty && s.numFiles === DriverFileList.MaxFiles + 1L)
    assert(!s.allFiles.queryExecution.analyzed.isInstanceOf[LocalRelation])
    // the same files in a checkpoint the driver reads: counted as they stream, and given up
    DeltaLog.forTable(spark, t.toString).checkpoint()
    val c = DeltaLog.forTable(spark, t.toString).snapshot()
    assert(c.checkpointVersion === Some(0L) && c.numFiles === DriverFileList.MaxFiles + 1L)
    assert(!c.allFiles.queryExecution.analyzed.isInstanceOf[LocalRelation])
    assert(c.allFiles.count() === DriverFileList.MaxFiles + 1L)
  }

  test("a checkpoint with typed statistics only is Spark's plan, which turns them into JSON") {
    val t = tempDir().resolve("t").toString
    spark.sql(
      s"CREATE TABLE delta.`$t` (id BIGINT, p STRING) USING delta PARTITIONED BY (p) " +
        "TBLPROPERTIES ('delta.checkpoint.writeStatsAsJson' = 'false', " +
        "'delta.checkpoint.writeStatsAsStruct' = 'true')"
    )
    spark.sql(s"INSERT INTO delta.`$t` VALUES (1, 'a'), (2, 'b')")
    DeltaLog.forTable(spark, t).checkpoint()
    spark.sql(s"INSERT INTO delta.`$t` VALUES (3, 'a')")
    val s = DeltaLog.forTable(spark, t).snapshot()
    assert(s.checkpointVersion.isDefined)
    assert(!s.allFiles.queryExecution.analyzed.isInstanceOf[LocalRelation])
    // the same table with JSON statistics in its checkpoint is listed on the driver, as Spark
    spark.sql(
      s"ALTER TABLE delta.`$t` SET TBLPROPERTIES ('delta.checkpoint.writeStatsAsJson' = 'true')"
    )
    DeltaLog.forTable(spark, t).checkpoint()
    val j = DeltaLog.forTable(spark, t).snapshot()
    assert(j.allFiles.queryExecution.analyzed.isInstanceOf[LocalRelation])
    val rows = j.allFiles.collect().map(_.toString).sorted.toSeq
    assert(rows === j.plannedAllFiles.collect().map(_.toString).sorted.toSeq)
    assert(rows.size === 3 && rows.forall(_.contains("numRecords")))
  }
}
