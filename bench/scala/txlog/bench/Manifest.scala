package txlog.bench

import java.nio.file.{Files, Path, StandardCopyOption}
import java.nio.file.attribute.FileTime

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}

/** A generated table's `manifest.json` (beside the table directory, written by bench/gen_logs.py):
  * the expected latest state, the W6 time-travel target and the W5 commit.
  */
final class Manifest private (table: Path, root: JsonNode) {

  /** The latest version, its file count and size. */
  def expected: Counts = Counts.from(root)

  /** The W6 target: the ISO-8601 timestamp and the state in force then. */
  def timeTravel: (String, Counts) = {
    val target = section("time_travel")
    (target.get("timestamp").asText, Counts.from(target))
  }

  /** Appends the W5 commit planned for this table to `copy` (a copy of it) as gen_logs'
    * `append_commit` does: copies the file beside the manifest to `_delta_log/<version, 20
    * digits>.json`, modification time the manifest's `ts` (epoch ms). Returns the state expected
    * after it.
    */
  def appendCommit(copy: Path): Counts = {
    val plan = section("append")
    val source = table.getParent.resolve(plan.get("file").asText)
    val commit = copy.resolve("_delta_log").resolve(f"${plan.get("version").asLong}%020d.json")
    Files.copy(source, commit, StandardCopyOption.REPLACE_EXISTING)
    Files.setLastModifiedTime(commit, FileTime.fromMillis(plan.get("ts").asLong))
    Counts.from(plan.get("expected"))
  }

  /** W15: the tables (paths relative to the table directory) loaded in turn. */
  def tables: Seq[String] = {
    val names = section("tables")
    (0 until names.size).map(i => names.get(i).asText)
  }

  private def section(name: String): JsonNode =
    Option(root.get(name)).getOrElse(throw new Mismatch(s"the manifest has no $name"))
}

/** Reads the manifest of a generated table. */
object Manifest {
  private val mapper = new ObjectMapper()

  /** The manifest of the table at `table` (its `../manifest.json`). */
  def of(table: Path): Manifest =
    new Manifest(table, mapper.readTree(table.getParent.resolve("manifest.json").toFile))
}
