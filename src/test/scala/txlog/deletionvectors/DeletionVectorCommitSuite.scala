package txlog.deletionvectors

import java.nio.file.{Files, Paths}

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import org.apache.commons.io.FileUtils
import org.apache.spark.SparkException
import org.apache.spark.sql.Row
import org.apache.spark.sql.delta.{DeltaLog => RefLog}
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types.{StringType, StructType}

import txlog.{DeltaLog, ErrorClasses, Fixtures, SparkSuite, TxlogException}
import txlog.protocol.ActionSchemas

/** Deletion vectors written by txlog on a table delta-spark made and deleted rows from (so a file
  * has a DV of delta-spark's; a fixture, copied): txlog loads a file's DV, merges new row indexes
  * into it, writes the DVs of both files in one Spark task (one DV file, or inline), and commits a
  * remove and an add of each file through its Transaction. delta-spark then reads the rows it had
  * less those at the new row indexes (which Spark's parquet reader finds by `_metadata.row_index`,
  * not txlog), and the same DELETE by delta-spark on a copy gives the same deletion counts and
  * stats. A flipped byte in the DV file is DELETION_VECTOR_CORRUPT when txlog reads the table.
  */
class DeletionVectorCommitSuite extends SparkSuite {
  private val mapper = new ObjectMapper()

  /** kernel/basic-dv-no-checkpoint, written by delta-spark: id BIGINT in two files (ids 0-4 and
    * 5-9), DVs enabled, and a DELETE of ids 0 and 1 by delta-spark, so the first file has a DV (in
    * its one DV file) and the second none. Copies of it are cheap, where building such a table
    * costs three delta-spark commits.
    */
  private val fixture = "kernel/basic-dv-no-checkpoint"

  private def copyOf(t: String): String = {
    val to = tempDir("dv-commit").resolve("t")
    FileUtils.copyDirectory(Paths.get(t).toFile, to.toFile)
    FileUtils.listFiles(to.toFile, null, true).asScala.foreach(_.setWritable(true))
    to.toFile.setWritable(true)
    to.resolve("_delta_log").toFile.setWritable(true)
    to.toString
  }

  private def base: String = {
    assume(Fixtures.available, Fixtures.skipMessage)
    Fixtures.path(fixture)
  }

  private def deltaSparkIds(t: String): Seq[Long] = {
    RefLog.clearCache()
    spark.read.format("delta").load(t).collect().map(_.getLong(0)).toSeq.sorted
  }

  /** The ids Spark's parquet reader finds at `indexes` of data file `path` of table `t`. */
  private def idsAt(t: String, path: String, indexes: Seq[Long]): Seq[Long] =
    spark.read
      .parquet(s"$t/$path")
      .select(col("id"), col("_metadata.row_index").as("i"))
      .where(col("i").isin(indexes: _*))
      .collect()
      .map(_.getLong(0))
      .toSeq

  /** The row index of `id` in data file `path` of table `t`, as Spark's parquet reader finds it. */
  private def indexOf(t: String, path: String, id: Long): Long =
    spark.read
      .parquet(s"$t/$path")
      .where(col("id") === id)
      .select(col("_metadata.row_index"))
      .head()
      .getLong(0)

  /** The new row indexes of data file `path`: the file with delta-spark's DV also gets the index of
    * id 1, which that DV deletes already.
    */
  private def newIndexes(t: String, path: String, hasDv: Boolean): Seq[Long] =
    if (hasDv) Seq(2L, 4L, indexOf(t, path, 1L)).distinct else Seq(0L, 3L)

  /** Writes the new DVs of `t`'s files with txlog in one Spark task and commits them; returns the
    * ids the new row indexes hold, and the committed add actions by path.
    */
  private def txlogDelete(t: String, inline: Boolean): (Seq[Long], Map[String, JsonNode]) = {
    val log = DeltaLog.forTable(spark, t)
    val snap = log.snapshot()
    val files = snap.allFiles
      .select(
        col("path"),
        col("deletionVector"),
        get_json_object(col("stats"), "$.numRecords").cast("long").as("n")
      )
      .collect()
      .toSeq
    assert(files.size === 2 && files.count(!_.isNullAt(1)) === 1)
    val work = files.map { r =>
      val dv = Option(r.getAs[Row]("deletionVector")).map(DvDescriptor.fromRow)
      (r.getString(0), dv, newIndexes(t, r.getString(0), dv.isDefined), r.getLong(2))
    }
    val removed = work.flatMap { case (p, _, idx, _) => idsAt(t, p, idx) }
    val target = DeletionVectorWriter.Target(
      t,
      snap.version,
      snap.config,
      spark.sparkContext.hadoopConfiguration,
      inline = inline
    )
    val written = spark.sparkContext
      .parallelize(work, 1)
      .mapPartitions { it =>
        target
          .writeAll(it.map { case (p, old, idx, n) =>
            p -> target.merged(p, old, RowIndexSet.of(idx: _*), Some(n))
          })
          .iterator
      }
      .collect()
      .toSeq
    val schema = new StructType()
      .add("path", StringType)
      .add("newDeletionVector", ActionSchemas.deletionVector)
    val newDvs =
      spark.createDataFrame(written.map { case (p, dv) => Row(p, dv.toRow) }.asJava, schema)
    val txn = log.startTransaction()
    txn.updateDeletionVectors(txn.readFiles().join(newDvs, "path"))
    val version = txn.commit("DELETE").version
    val commit = Paths.get(t, "_delta_log", f"$version%020d.json")
    val adds = Files
      .readAllLines(commit)
      .asScala
      .map(l => mapper.readTree(l))
      .flatMap(n => Option(n.get("add")))
      .map(a => a.get("path").asText -> a)
      .toMap
    (removed, adds)
  }

  /** The base table after txlog's delete into a DV file: (table, ids removed, adds committed). */
  private lazy val fileDeleted: (String, Seq[Long], Map[String, JsonNode]) = {
    val t = copyOf(base)
    val (removed, adds) = txlogDelete(t, inline = false)
    (t, removed, adds)
  }

  /** The ids of `base` delta-spark reads (before any txlog delete). */
  private lazy val before: Seq[Long] = deltaSparkIds(base)

  /** The checks of both kinds: the rows delta-spark and txlog read, the ids removed. */
  private def checkRows(t: String, removed: Seq[Long]): Unit = {
    assert(before === (2L to 9L))
    assert(removed.size === 5 && removed.contains(1L), removed)
    assert(removed.count(before.contains) === 4, removed) // id 1 was deleted already
    assert(deltaSparkIds(t) === before.diff(removed))
    assert(
      DeltaLog.forTable(spark, t).read().collect().map(_.getLong(0)).sorted.toSeq ===
        before.diff(removed)
    )
  }

  test("a DV file merged with delta-spark's: delta-spark reads the rows left, as its DELETE") {
    val oracle = copyOf(base)
    val (t, removed, adds) = fileDeleted
    checkRows(t, removed)
    // delta-spark's own DELETE of the same rows, on a copy: the same counts and stats
    spark.sql(s"DELETE FROM delta.`$oracle` WHERE id IN (${removed.mkString(", ")})")
    assert(deltaSparkIds(oracle) === deltaSparkIds(t))
    val theirs = RefLog.forTable(spark, oracle).update().allFiles.collect()
    assert(theirs.map(_.path).toSet === adds.keySet)
    theirs.foreach { f =>
      val ours = adds(f.path)
      assert(ours.get("dataChange").asBoolean)
      assert(
        ours.get("deletionVector").get("cardinality").asLong === f.deletionVector.cardinality
      )
      assert(mapper.readTree(ours.get("stats").asText) === mapper.readTree(f.stats), f.path)
      assert(ours.get("size").asLong === f.size)
      assert(ours.get("modificationTime").asLong === f.modificationTime)
    }
    // one task: one DV file holding both, in the table's root as delta-spark names them
    val dvs = adds.values.map(_.get("deletionVector"))
    assert(dvs.forall(_.get("storageType").asText == "u"))
    assert(dvs.map(_.get("pathOrInlineDv").asText).toSet.size === 1)
    assert(dvs.map(_.get("offset").asInt).toSet.size === 2)
    val names =
      Paths.get(t).toFile.list().filter(_.matches("deletion_vector_[-0-9a-f]{36}\\.bin"))
    assert(names.length === 2, names.toSeq) // delta-spark's, and txlog's
  }

  test("inline DVs merged with delta-spark's: delta-spark reads the rows left") {
    val t = copyOf(base)
    val (removed, adds) = txlogDelete(t, inline = true)
    checkRows(t, removed)
    val dvs = adds.values.map(_.get("deletionVector"))
    assert(dvs.forall(d => d.get("storageType").asText == "i" && !d.has("offset")))
    // every row delta-spark no longer reads is in a DV (10 rows were written)
    assert(dvs.map(_.get("cardinality").asLong).sum === 10L - deltaSparkIds(t).size)
  }

  test("a DV file with a flipped byte: txlog's read is DELETION_VECTOR_CORRUPT naming it") {
    val t = copyOf(fileDeleted._1)
    val adds = fileDeleted._3
    val (path, add) = adds.find(_._2.get("deletionVector").get("offset").asInt > 1).get
    val dv = add.get("deletionVector")
    val file = txlog.protocol.DvPaths
      .absolutePath(t, "u", dv.get("pathOrInlineDv").asText)
      .map(p => Paths.get(p.toUri.getPath))
      .get
    Files.deleteIfExists(file.resolveSibling(s".${file.getFileName}.crc"))
    val bytes = Files.readAllBytes(file)
    val at = dv.get("offset").asInt + 4 + 10
    bytes(at) = (bytes(at) ^ 0x04).toByte
    Files.write(file, bytes)
    val e = intercept[SparkException](DeltaLog.forTable(spark, t).read().collect())
    val typed = typedCause(e)
    assert(typed.errorClass === ErrorClasses.DeletionVectorCorrupt)
    assert(typed.getMessage.contains(file.getFileName.toString), typed.getMessage)
    assert(typed.getMessage.toLowerCase.contains("checksum mismatch"), typed.getMessage)
    assert(typed.file.exists(_.endsWith(path)), typed.file)
  }

  private def typedCause(e: Throwable): TxlogException = Iterator
    .iterate[Throwable](e)(_.getCause)
    .takeWhile(_ != null)
    .collectFirst { case x: TxlogException => x }
    .getOrElse(fail("no typed error", e))

  test("a new DV deleting fewer rows than the file's current one is refused, nothing committed") {
    val t = copyOf(base)
    val log = DeltaLog.forTable(spark, t)
    val version = log.snapshot().version
    val path =
      log.snapshot().allFiles.where("deletionVector IS NOT NULL").head().getAs[String]("path")
    val w = DeletionVectorWriter.open(t, spark.sparkContext.hadoopConfiguration)
    val smaller = w.write(RowIndexSet.of(0L)) // the file's DV (delta-spark's) deletes 2 rows
    w.close()
    val schema = new StructType()
      .add("path", StringType)
      .add("newDeletionVector", ActionSchemas.deletionVector)
    val newDvs = spark.createDataFrame(Seq(Row(path, smaller.toRow)).asJava, schema)
    val txn = log.startTransaction()
    txn.updateDeletionVectors(txn.readFiles().join(newDvs, "path"))
    val typed = typedCause(intercept[Exception](txn.commit("DELETE")))
    assert(typed.errorClass === ErrorClasses.InvalidCommitActions)
    assert(typed.getMessage.contains(path) && typed.getMessage.contains("fewer"), typed.getMessage)
    assert(DeltaLog.forTable(spark, t).snapshot().version === version)
  }
}
