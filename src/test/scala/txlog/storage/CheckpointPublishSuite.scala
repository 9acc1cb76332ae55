package txlog.storage

import java.io.File
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files
import java.nio.file.attribute.FileTime

import com.fasterxml.jackson.databind.ObjectMapper

import txlog.{DeltaLog, Oracle, SparkSuite}

/** Writing a checkpoint of a version that already has one keeps the existing file. */
class CheckpointPublishSuite extends SparkSuite {
  private val fixedTime = FileTime.fromMillis(1577836800000L) // 2020-01-01T00:00:00Z
  private val classicV1 = "00000000000000000001.checkpoint.parquet"

  test("a classic checkpoint that exists is left untouched; _last_checkpoint still ends correct") {
    val dir = tempDir().resolve("t").toString
    spark.range(0, 10).write.format("delta").save(dir)
    spark.range(10, 15).write.format("delta").mode("append").save(dir)
    val log = new File(dir, "_delta_log")
    val first = DeltaLog.forTable(spark, dir).checkpoint()
    assert(first.files.map(new File(_).getName) === Seq(classicV1))
    val file = new File(log, classicV1).toPath
    Files.setLastModifiedTime(file, fixedTime)
    val bytes = Files.readAllBytes(file)
    val inode = Files.getAttribute(file, "unix:ino")
    // A stale hint, as left by a writer that died before updating it.
    Files.delete(new File(log, "_last_checkpoint").toPath)

    val again = DeltaLog.forTable(spark, dir).checkpoint()
    assert(again.alreadyExisted)
    assert(!first.alreadyExisted)
    assert(again.files.map(new File(_).getName) === Seq(classicV1))
    assert(again.sizeInBytes === bytes.length.toLong)
    assert(Files.readAllBytes(file).sameElements(bytes))
    assert(Files.getLastModifiedTime(file) === fixedTime)
    assert(Files.getAttribute(file, "unix:ino") === inode)
    assert(log.list().count(_.contains(".checkpoint.")) === 1)
    val leftovers = log.list().filter(n => n.startsWith(".txlog-staging") || n.endsWith(".tmp"))
    assert(leftovers.isEmpty, "no staging or temporary files are left")

    val hint = new ObjectMapper().readTree(
      new String(Files.readAllBytes(new File(log, "_last_checkpoint").toPath), UTF_8)
    )
    assert(hint.get("version").asLong() === 1L)
    assert(hint.get("sizeInBytes").asLong() === bytes.length.toLong)
    val (ours, ref) = Oracle.both(spark, dir)
    assert(ours.get === ref.get)
  }
}
