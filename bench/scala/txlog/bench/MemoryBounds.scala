package txlog.bench

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, Paths}

import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.databind.node.ObjectNode
import org.apache.spark.sql.SparkSession

import txlog.DeltaLog
import txlog.protocol.FileNames

/** The on-demand driver-memory check of bench/memory_bounds.py (not part of `sbt test`): run in a
  * JVM with a 1 GiB heap, it either loads a table (`load T`: a snapshot of a table whose tail is 2
  * GiB of JSON, counted and its files counted) or runs `update()` on a cached snapshot after each
  * of `N` small commits it writes (`updates T N`, each commit one add and one remove); `checkpoint
  * T V` prepares a table. It writes the time, the JVM heap peak and the counts as JSON to `OUT`.
  *
  * {{{
  * build/sbt 'set Test/javaOptions += "-Xmx1g"' \
  *   'Test/runMain txlog.bench.MemoryBounds load /tmp/big/table /tmp/load.json'
  * }}}
  */
object MemoryBounds {
  private val mapper = new ObjectMapper()

  def main(argv: Array[String]): Unit = {
    val result = mapper.createObjectNode()
    val (out, work) = argv.toList match {
      case "load" :: table :: out :: Nil => (out, () => load(Paths.get(table), result))
      case "checkpoint" :: table :: v :: out :: Nil =>
        (out, () => checkpoint(Paths.get(table), v.toLong, result))
      case "updates" :: table :: n :: out :: Nil =>
        (out, () => updates(Paths.get(table), n.toInt, result))
      case _ =>
        System.err.println("usage: MemoryBounds load T OUT | updates T N OUT | checkpoint T V OUT")
        sys.exit(2)
    }
    val spark = session()
    result.put("max_heap_mb", Runtime.getRuntime.maxMemory / (1 << 20))
    HeapPeak.reset()
    val start = System.nanoTime()
    try {
      work()
      result.put("status", "ok")
    } catch {
      case e: Throwable =>
        e.printStackTrace()
        result.put("status", "failed").put("error", s"${e.getClass.getName}: ${e.getMessage}")
    }
    result.put("seconds", (System.nanoTime() - start) / 1e9).put("jvm_heap_peak_mb", HeapPeak.mb)
    PeakRss.mb.foreach(mb => result.put("jvm_rss_mb", mb))
    Files.writeString(
      Paths.get(out),
      mapper.writerWithDefaultPrettyPrinter.writeValueAsString(result)
    )
    spark.stop()
    sys.exit(0)
  }

  private def session(): SparkSession = {
    val spark = SparkSession
      .builder()
      .master("local[2]")
      .appName("txlog-memory-bounds")
      .config("spark.sql.shuffle.partitions", "8")
      .config("spark.ui.enabled", "false")
      .config("spark.ui.showConsoleProgress", "false")
      .getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    spark
  }

  /** Writes the table's checkpoint at `v` (to prepare a table, not measured). */
  private def checkpoint(table: Path, v: Long, result: ObjectNode): Unit = {
    DeltaLog.forTable(SparkSession.active, table.toString).checkpoint(Some(v))
    result.put("checkpoint", v)
  }

  private def load(table: Path, result: ObjectNode): Unit = {
    val s = DeltaLog.forTable(SparkSession.active, table.toString).snapshot()
    result.put("version", s.version).put("num_files", s.numFiles).put("size", s.sizeInBytes)
    result.put("all_files_rows", s.allFiles.count())
  }

  private def updates(
      table: Path,
      n: Int,
      result: ObjectNode
  ): Unit = {
    val log = DeltaLog.forTable(SparkSession.active, table.toString)
    var s = log.snapshot().cache()
    val first = s.version
    var recached = 0
    var removable = s.allFiles.select("path").head(n).map(_.getString(0)).toList
    (1 to n).foreach { i =>
      val v = first + i
      val gone = removable.headOption.toList
      removable = removable.drop(1)
      val lines = Seq(
        s"""{"add":{"path":"update-$v.parquet","partitionValues":{"date":"2024-01-01",""" +
          s""""part":"0"},"size":$i,"modificationTime":1,"dataChange":true}}"""
      ) ++ gone.map(p => s"""{"remove":{"path":"$p","deletionTimestamp":1,"dataChange":true}}""")
      val file = table.resolve("_delta_log").resolve(FileNames.commitName(v))
      Files.write(file, String.join("\n", lines: _*).getBytes(UTF_8))
      s = log.update()
      if (s.isCached) recached += 1
      s.numFiles
    }
    result.put("updates", n).put("recached", recached).put("version", s.version)
    result.put("num_files", s.numFiles).put("size", s.sizeInBytes)
  }
}
