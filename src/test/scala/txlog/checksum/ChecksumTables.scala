package txlog.checksum

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.databind.node.ObjectNode
import org.apache.spark.sql.delta.{DeltaLog => RefLog}

import txlog.{ChecksumMismatch, DeltaLog, Fixtures, SparkSuite, TxlogException}
import txlog.protocol.FileNames

/** Helpers of the version checksum suites: fixture copies and their `.crc` files. */
trait ChecksumTables extends SparkSuite {
  protected val mapper = new ObjectMapper()
  protected val Crc = """^(\d{20})\.crc$""".r

  /** The versions with a `.crc` file in a table's `_delta_log`. */
  protected def crcVersions(table: Path): Seq[Long] = {
    val s = Files.list(table.resolve("_delta_log"))
    try
      s.iterator()
        .asScala
        .map(_.getFileName.toString)
        .collect { case Crc(v) => v.toLong }
        .toSeq
        .sorted
    finally s.close()
  }

  protected def crcPath(table: Path, v: Long): Path =
    table.resolve("_delta_log").resolve(FileNames.checksumName(v))

  /** Deletes the `.crc` files of a table copy (and Hadoop's side files of them). */
  protected def deleteChecksums(table: Path): Seq[Long] = {
    val versions = crcVersions(table)
    versions.foreach { v =>
      val p = crcPath(table, v)
      Files.delete(p)
      Files.deleteIfExists(p.resolveSibling(s".${p.getFileName}.crc"))
    }
    versions
  }

  protected def copy(name: String): Path = {
    assume(Fixtures.available, Fixtures.skipMessage)
    Fixtures.copy(name, tempDir("crc"))
  }

  /** Rewrites the `.crc` of version `v` with `change` applied. */
  protected def tamper(table: Path, v: Long)(change: ObjectNode => Unit): Unit = {
    val p = crcPath(table, v)
    val json = mapper.readTree(Files.readString(p)).asInstanceOf[ObjectNode]
    change(json)
    Files.writeString(p, mapper.writeValueAsString(json))
    Files.deleteIfExists(p.resolveSibling(s".${p.getFileName}.crc"))
  }
}
