package txlog.replay

import scala.util.Try

import org.apache.spark.sql.catalyst.plans.logical.LocalRelation

import txlog.{DeltaLog, Fixtures, SparkSuite}
import txlog.testing.JobDescriptions

/** The file list of a small table of commits, built on the driver ([[DriverFileList]]), is the one
  * Spark's plan over the same snapshot gives: the same schema, to the nullability of every field,
  * and the same rows, typed partition values and parsed statistics included, on every fixture that
  * has no checkpoint. Collecting it runs no Spark job.
  */
class DriverFileListSuite extends SparkSuite {

  test("on every fixture of commits only: Spark's schema and rows, collected without a job") {
    assume(Fixtures.available, Fixtures.skipMessage)
    var compared = 0
    Fixtures.tables.foreach { name =>
      Try(DeltaLog.forTable(spark, Fixtures.path(name)).snapshot()).toOption
        .filter(_.checkpointVersion.isEmpty)
        .foreach { s =>
          val local = s.allFiles
          if (local.queryExecution.analyzed.isInstanceOf[LocalRelation]) {
            val planned = s.plannedAllFiles
            assert(local.schema === planned.schema, name)
            val (rows, jobs) = JobDescriptions.of(spark)(local.collect().toSeq)
            assert(jobs.isEmpty, s"$name: $jobs")
            val expected = planned.collect().toSeq
            assert(rows.map(_.toString).sorted === expected.map(_.toString).sorted, name)
            compared += 1
          }
        }
    }
    info(s"$compared fixtures compared")
    assert(compared >= 50, "most fixtures are small logs of commits")
  }

  test("past the file budget, or with a checkpoint, the list is Spark's plan") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val checkpointed = DeltaLog.forTable(spark, Fixtures.path("golden/checkpoint")).snapshot()
    assert(!checkpointed.allFiles.queryExecution.analyzed.isInstanceOf[LocalRelation])
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
    java.nio.file.Files.write(
      t.resolve("_delta_log").resolve("00000000000000000000.json"),
      scala.jdk.CollectionConverters.SeqHasAsJava(head ++ adds).asJava
    )
    val s = DeltaLog.forTable(spark, t.toString).snapshot()
    assert(s.checkpointVersion.isEmpty && s.numFiles === DriverFileList.MaxFiles + 1L)
    assert(!s.allFiles.queryExecution.analyzed.isInstanceOf[LocalRelation])
  }
}
