package txlog.bench

import com.fasterxml.jackson.databind.JsonNode

import txlog.Snapshot

/** What an operation produced: the snapshot's version and its live files' count and total size,
  * compared with what a table's manifest expects (as bench/engines/base.py's `Counts`).
  */
final case class Counts(version: Long, numFiles: Long, sizeInBytes: Long) {
  override def toString: String =
    s"Counts(version=$version, num_files=$numFiles, size_in_bytes=$sizeInBytes)"
}

/** Reading counts from a snapshot (forcing the file list to be produced) or a manifest entry. */
object Counts {

  /** The snapshot's version, file count and size (one Spark aggregation over its files). */
  def of(snapshot: Snapshot): Counts =
    Counts(snapshot.version, snapshot.numFiles, snapshot.sizeInBytes)

  /** A manifest entry's `version`, `num_files` and `size_in_bytes`. */
  def from(entry: JsonNode): Counts = Counts(
    field(entry, "version").asLong,
    field(entry, "num_files").asLong,
    field(entry, "size_in_bytes").asLong
  )

  private def field(entry: JsonNode, name: String): JsonNode =
    Option(entry.get(name)).getOrElse(throw new Mismatch(s"manifest entry has no $name"))

  /** Fails with a [[Mismatch]] unless the operation produced what the manifest expects. */
  def check(got: Counts, want: Counts): Unit =
    if (got != want) throw new Mismatch(s"expected $want, got $got")
}

/** A result that differs from the manifest: the job fails rather than timing the wrong work. */
final class Mismatch(message: String) extends Exception(message)
