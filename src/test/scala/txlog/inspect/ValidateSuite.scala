package txlog.inspect

import java.net.URI
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, Paths, StandardOpenOption}

import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.databind.node.ObjectNode
import org.apache.spark.sql.types.StructType

import txlog.{DeltaLog, Fixtures, SparkSuite, TxlogException}
import txlog.protocol.DvPaths
import txlog.testing.Breadth

/** `DeltaLog.validate()`: no error finding on intact fixtures, and each injected fault found with
  * its rule and version (on copies). A deleted commit is injected every time; the other faults take
  * turns in `make test` ([[txlog.testing.InTurn]]).
  */
class ValidateSuite extends SparkSuite with txlog.testing.InTurn {
  override protected def turns = 2 // make test runs its inTurn tests in turn
  private val mapper = new ObjectMapper()

  /** Fixtures meant to fail (see the fixtures README) or built around a corrupt log file: they must
    * have error findings, of these rules.
    */
  private val meantToFail: Map[String, Set[String]] = Map(
    "golden/versions-not-contiguous" -> Set(Rules.VersionContiguity),
    "golden/deltalog-invalid-protocol-version" -> Set(Rules.SnapshotUnreadable),
    "golden/deltalog-state-reconstruction-without-metadata" -> Set(Rules.SnapshotUnreadable),
    "golden/deltalog-state-reconstruction-without-protocol" -> Set(Rules.SnapshotUnreadable),
    "golden/deltalog-state-reconstruction-from-checkpoint-missing-metadata" ->
      Set(Rules.SnapshotUnreadable),
    "golden/deltalog-state-reconstruction-from-checkpoint-missing-protocol" ->
      Set(Rules.SnapshotUnreadable),
    // No commit has a metaData action.
    "golden/data-reader-absolute-paths-escaped-chars" -> Set(Rules.SnapshotUnreadable),
    "golden/corrupted-last-checkpoint-kernel" -> Set(Rules.LastCheckpointMalformed)
  )

  /** (version, file, rule, severity, detail) of every finding. */
  private def findings(path: String): Seq[(Option[Long], String, String, String, String)] =
    DeltaLog
      .forTable(spark, path)
      .validate()
      .collect()
      .toSeq
      .map(r =>
        (
          Option(r.getAs[java.lang.Long]("version")).map(_.longValue),
          r.getAs[String]("file"),
          r.getAs[String]("rule"),
          r.getAs[String]("severity"),
          r.getAs[String]("detail")
        )
      )

  private def errors(path: String) = findings(path).filter(_._4 == "error")

  /** Whether a file a finding names is absent on disk: checked here with java.nio, not txlog. */
  private def absent(table: String, file: String): Boolean = {
    val uri = if (file.contains(":")) new URI(file) else new URI(null, null, file, null)
    val p =
      if (uri.getScheme == "file") Paths.get(uri)
      else Paths.get(table).resolve(Paths.get(new URI(file).getPath.stripPrefix("/")))
    !Files.exists(p)
  }

  /** The fixtures validated whole: those meant to fail, half of those with deletion vectors,
    * sidecars or row tracking (rules about their files) and a twelfth of all, which half and
    * twelfth rotating with the day's number ([[Breadth]]), so that twelve days' runs validate every
    * fixture (a sixth until `make test` ran 38 minutes, 295 s of it this suite's; a third at every
    * run until the suite was the second longest of a 35-minute CI run, 340 s of it; every fixture
    * with `make test-breadth`): each costs a few seconds of CI's time. The fault tests below cover
    * each rule on purpose.
    */
  private val validated: Seq[String] = {
    val files = Breadth
      .share(
        Fixtures.tables.filter(n =>
          Seq("dv", "deletion", "sidecar", "row-track").exists(n.contains)
        ),
        2,
        "ValidateSuite/files"
      )(_ => false)
      .toSet
    Breadth.share(Fixtures.tables, 12, "ValidateSuite")(n => meantToFail.contains(n) || files(n))
  }

  validated.foreach { name =>
    test(s"validate: $name") {
      assume(Fixtures.available, Fixtures.skipMessage)
      val path = Fixtures.path(name)
      val found =
        try Right(errors(path))
        catch { case e: TxlogException if Validator.Refusals(e.errorClass) => Left(e) }
      found match {
        case Left(e) => cancel(s"refused: ${e.errorClass}")
        case Right(errs) =>
          meantToFail.get(name) match {
            case Some(rules) =>
              assert(errs.map(_._3).toSet.intersect(rules).nonEmpty, errs.mkString("\n"))
            case None =>
              // A file absent from this copy of the fixture is a true finding (fixtures README).
              val missing = Set(Rules.MissingDataFile, Rules.MissingDvFile)
              // The fixtures README: this table's DV file (a '%' in its name, under a placeholder
              // folder) is not in the copy.
              def documented(f: (Option[Long], String, String, String, String)) =
                name == "spark/table-with-dv-special-char" && f._3 == Rules.MissingDvFile
              val (absentFiles, others) =
                errs.partition(f => missing(f._3) && (documented(f) || absent(path, f._2)))
              assert(others.isEmpty, others.mkString("\n"))
              if (absentFiles.nonEmpty) cancel(s"${absentFiles.size} files absent from the copy")
          }
      }
    }
  }

  private def copy(name: String): Path = Fixtures.copy(name, tempDir())
  private def commit(table: Path, v: Long) =
    table.resolve("_delta_log").resolve(f"$v%020d.json")

  private def assertFound(
      path: Path,
      rule: String,
      version: Long,
      file: String => Boolean = _ => true
  ) = {
    val errs = errors(path.toString)
    assert(
      errs.exists(f => f._3 == rule && f._1.contains(version) && file(String.valueOf(f._2))),
      errs.mkString("\n")
    )
  }

  test("fault: a deleted commit is a version gap at its version") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = copy("golden/checkpoint")
    Files.delete(commit(t, 3))
    assertFound(t, Rules.VersionContiguity, 3)
  }

  inTurn("fault: a truncated checkpoint is unreadable at its version") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = copy("golden/checkpoint")
    val cp = t.resolve("_delta_log").resolve(f"${10}%020d.checkpoint.parquet")
    val bytes = Files.readAllBytes(cp)
    Files.write(cp, bytes.take(bytes.length / 2))
    assertFound(t, Rules.CheckpointUnreadable, 10)
  }

  inTurn("fault: a tampered .crc mismatches the replay of its version") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = copy("golden/commit-info-containing-arbitrary-operationParams-types")
    val crc = t.resolve("_delta_log").resolve(f"${2}%020d.crc")
    val node = mapper.readTree(Files.readString(crc)).asInstanceOf[ObjectNode]
    node.put("numFiles", 3L)
    Files.writeString(crc, mapper.writeValueAsString(node))
    assertFound(t, Rules.ChecksumMismatch, 2, _.endsWith(".crc"))
  }

  /** The first add line of a commit and its path. */
  private def firstAdd(file: Path): (String, String) = {
    val line = Files.readAllLines(file).toArray.map(_.toString).find(_.contains("\"add\"")).get
    (line, mapper.readTree(line).get("add").get("path").asText())
  }

  inTurn("fault: a duplicate add in a commit is found with its path") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = copy("golden/data-reader-partition-values")
    val (line, path) = firstAdd(commit(t, 0))
    Files.write(commit(t, 0), ("\n" + line + "\n").getBytes(UTF_8), StandardOpenOption.APPEND)
    assertFound(t, Rules.DuplicateFileAction, 0, _ == path)
  }

  inTurn("fault: a missing data file is found at the latest version") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = copy("golden/data-reader-partition-values")
    val (_, path) = firstAdd(commit(t, 0))
    Files.delete(t.resolve(new URI(path).getPath))
    assertFound(t, Rules.MissingDataFile, 0, _ == path)
  }

  inTurn("fault: a missing deletion vector file is found at the latest version") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = copy("kernel/basic-dv-no-checkpoint")
    val dv = t.toFile.listFiles().find(_.getName.startsWith("deletion_vector_")).get
    Files.delete(dv.toPath)
    assertFound(t, Rules.MissingDvFile, 1, _.endsWith(dv.getName))
  }

  inTurn("fault: _last_checkpoint pointing to nothing") {
    assume(Fixtures.available, Fixtures.skipMessage)
    val t = copy("golden/checkpoint")
    Files.writeString(t.resolve("_delta_log/_last_checkpoint"), """{"version":99,"size":13}""")
    assertFound(t, Rules.LastCheckpointPointer, 99)
  }

  inTurn("fault: out-of-order in-commit timestamps") {
    val t = tempDir().resolve("ict")
    val log = DeltaLog.createTable(
      spark,
      t.toString,
      StructType.fromDDL("id BIGINT"),
      Nil,
      Map("delta.enableInCommitTimestamps" -> "true")
    )
    log.startTransaction().commit("WRITE", Map.empty)
    log.startTransaction().commit("WRITE", Map.empty)
    assert(errors(t.toString).isEmpty)
    def ict(v: Long) =
      mapper.readTree(Files.readAllLines(commit(t, v)).get(0)).get("commitInfo")
    val earlier = ict(1).get("inCommitTimestamp").asLong() - 1000
    val lines = Files.readAllLines(commit(t, 2))
    val first = ict(2).asInstanceOf[ObjectNode].put("inCommitTimestamp", earlier)
    lines.set(0, mapper.writeValueAsString(mapper.createObjectNode().set("commitInfo", first)))
    Files.write(commit(t, 2), lines)
    assertFound(t, Rules.IctNotMonotonic, 2)
  }

  test("Z85 UUID of a deletion vector, from the spec's example") {
    assert(
      DvPaths.absolutePath("s3://mytable", "u", "ab^-aqEH.-t@S}K{vb[*k^").map(_.toString) ===
        Some("s3://mytable/ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin")
    )
  }
}
