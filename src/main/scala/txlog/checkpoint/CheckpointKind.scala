package txlog.checkpoint

import txlog.protocol.TableConfiguration
import txlog.{Metadata, Protocol}
import txlog.errors.TxlogErrors

/** The checkpoint a writer produces ("Checkpoint Specs", "Checkpoint Naming Scheme"): which file
  * names, and whether the content follows the V2 spec (a checkpointMetadata action, and file
  * actions possibly in sidecars).
  */
private[txlog] sealed trait CheckpointKind {
  def name: String

  /** Whether the content follows the V2 spec. */
  def v2Spec: Boolean
}

private[txlog] object CheckpointKind {

  /** `n.checkpoint.parquet`; V2 spec (inline file actions) on tables with v2Checkpoint. */
  final case class Classic(v2Spec: Boolean) extends CheckpointKind {
    def name: String = "classic"
  }

  /** `n.checkpoint.o.p.parquet`, parts hash-clustered by file key; always V1 spec. */
  final case class MultiPart(parts: Option[Int]) extends CheckpointKind {
    def name: String = "multipart"
    def v2Spec: Boolean = false
  }

  /** `n.checkpoint.u.{parquet,json}`, file actions in sidecars or inline; V2 spec. */
  final case class Uuid(format: String, sidecars: Boolean) extends CheckpointKind {
    def name: String = "v2"
    def v2Spec: Boolean = true
  }

  val Names: Seq[String] = Seq("classic", "multipart", "v2")

  /** The kind asked for, or the table's default (`delta.checkpointPolicy`: v2 on tables with the
    * v2Checkpoint feature, else classic), checked against what the spec allows on this table.
    *
    * Options: `parts` (multipart: number of parts), `format` (v2: parquet or json), `sidecars` (v2:
    * true to put file actions in sidecar files, the default, or false to inline them).
    */
  def resolve(
      table: String,
      kind: Option[String],
      options: Map[String, String],
      protocol: Protocol,
      metadata: Metadata
  ): CheckpointKind = {
    val v2Table = protocol.hasWriterFeature("v2Checkpoint")
    val chosen = kind
      .map(_.trim.toLowerCase)
      .getOrElse(if (TableConfiguration(protocol, metadata).v2Checkpoints) "v2" else "classic")
    val known = Set("parts", "format", "sidecars")
    options.keys.find(k => !known.contains(k)).foreach { k =>
      throw TxlogErrors.invalidArgument(
        k,
        s"unknown checkpoint option; known: " +
          known.toSeq.sorted.mkString(", ")
      )
    }
    chosen match {
      case "classic" => Classic(v2Spec = v2Table)
      case "multipart" =>
        if (v2Table)
          throw TxlogErrors.checkpointKindNotAllowed(
            table,
            "multipart",
            "The table has the v2Checkpoint feature; the spec forbids multi-part checkpoints."
          )
        MultiPart(options.get("parts").map { p =>
          scala.util
            .Try(p.trim.toInt)
            .toOption
            .filter(_ >= 2)
            .getOrElse(
              throw TxlogErrors.invalidArgument("parts", s"'$p' is not a whole number >= 2")
            )
        })
      case "v2" =>
        if (!v2Table)
          throw TxlogErrors.checkpointKindNotAllowed(
            table,
            "v2",
            "UUID-named V2 checkpoints need the v2Checkpoint table feature, which this table's " +
              "protocol does not list."
          )
        val format = options.getOrElse("format", "parquet").trim.toLowerCase
        if (format != "parquet" && format != "json") {
          throw TxlogErrors.invalidArgument("format", s"'$format' is not parquet or json")
        }
        val sidecars = options.getOrElse("sidecars", "true").trim.toLowerCase match {
          case "true"  => true
          case "false" => false
          case other => throw TxlogErrors.invalidArgument("sidecars", s"'$other' is not a boolean")
        }
        Uuid(format, sidecars)
      case other =>
        throw TxlogErrors.invalidArgument(
          "kind",
          s"'$other' is not one of " +
            Names.mkString(", ")
        )
    }
  }
}
