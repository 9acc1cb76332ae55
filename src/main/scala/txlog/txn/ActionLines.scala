package txlog.txn

import java.util.{LinkedHashMap => JMap}

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper

import txlog.{Metadata, Protocol}
import txlog.protocol.DomainAction

/** The JSON lines of a commit's driver-side actions, with the spec's field names and absent
  * optional fields left out: commitInfo, protocol, metaData, txn, domainMetadata.
  */
private[txlog] object ActionLines {
  private val mapper = new ObjectMapper()

  private def obj(fields: (String, Any)*): JMap[String, Any] = {
    val m = new JMap[String, Any]()
    fields.foreach {
      case (_, None) | (_, null) => ()
      case (k, Some(v))          => m.put(k, java(v))
      case (k, v)                => m.put(k, java(v))
    }
    m
  }

  /** Scala collections as the Java ones Jackson writes as JSON maps and arrays. */
  private def java(v: Any): Any = v match {
    case m: Map[_, _] => m.map { case (k, x) => k -> java(x) }.asJava
    case s: Seq[_]    => s.map(java).asJava
    case s: Set[_]    => s.toSeq.map(java).asJava
    case other        => other
  }

  private def line(action: String, body: JMap[String, Any]): String =
    mapper.writeValueAsString(obj(action -> body))

  def protocol(p: Protocol): String = line(
    "protocol",
    obj(
      "minReaderVersion" -> p.minReaderVersion,
      "minWriterVersion" -> p.minWriterVersion,
      "readerFeatures" -> p.readerFeatures.map(_.toSeq.sorted),
      "writerFeatures" -> p.writerFeatures.map(_.toSeq.sorted)
    )
  )

  def metadata(m: Metadata): String = line(
    "metaData",
    obj(
      "id" -> m.id,
      "name" -> m.name,
      "description" -> m.description,
      "format" -> obj("provider" -> m.formatProvider, "options" -> m.formatOptions),
      "schemaString" -> m.schemaString,
      "partitionColumns" -> m.partitionColumns,
      "configuration" -> m.configuration,
      "createdTime" -> m.createdTime
    )
  )

  def txn(appId: String, version: Long, lastUpdated: Long): String = line(
    "txn",
    obj("appId" -> appId, "version" -> version, "lastUpdated" -> lastUpdated)
  )

  def domain(d: DomainAction): String = line(
    "domainMetadata",
    obj("domain" -> d.domain, "configuration" -> d.configuration, "removed" -> d.removed)
  )

  /** The commitInfo line (see [[CommitInfo]]). */
  def commitInfo(c: CommitInfo): String = line(
    "commitInfo",
    obj(
      "timestamp" -> c.timestamp,
      "inCommitTimestamp" -> c.inCommitTimestamp,
      "operation" -> c.operation,
      "operationParameters" -> c.operationParameters,
      "readVersion" -> c.readVersion,
      "isolationLevel" -> c.isolationLevel,
      "isBlindAppend" -> c.isBlindAppend,
      "operationMetrics" -> c.operationMetrics,
      "engineInfo" -> c.engineInfo,
      "txnId" -> c.txnId,
      "tags" -> Some(c.tags).filter(_.nonEmpty)
    )
  )

  /** The `rowIdHighWaterMark` of a `delta.rowTracking` domain configuration, if it has one. */
  def highWaterMark(configuration: String): Option[Long] =
    scala.util
      .Try(mapper.readTree(configuration))
      .toOption
      .flatMap(n => Option(n).flatMap(x => Option(x.get("rowIdHighWaterMark"))))
      .filter(_.canConvertToLong)
      .map(_.asLong())
}

/** A commit's commitInfo action ("Commit Provenance Information"). `operationParameters` values are
  * JSON text for non-string values, as delta-spark writes them (`"partitionBy": "[]"`).
  */
private[txlog] final case class CommitInfo(
    timestamp: Long,
    inCommitTimestamp: Option[Long],
    operation: String,
    operationParameters: Map[String, String],
    operationMetrics: Map[String, String],
    readVersion: Option[Long],
    isolationLevel: String,
    isBlindAppend: Boolean,
    engineInfo: String,
    txnId: String,
    tags: Map[String, String] = Map.empty
)
