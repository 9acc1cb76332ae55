package txlog.log

import org.scalatest.funsuite.AnyFunSuite

import txlog.replay.FileKeys
import txlog.protocol.FileNames
import txlog.protocol.CompactionFile
import txlog.protocol.CheckpointFile
import txlog.protocol.VersionChecksumFile
import txlog.protocol.FileInfo
import txlog.protocol.CommitFile
import txlog.protocol.CheckpointNaming

/** File names, the `_last_checkpoint` checksum and path canonicalization: no Spark needed. */
class LogNamesSuite extends AnyFunSuite with txlog.testing.Claimed {
  private def parse(name: String) = FileNames.parse(FileInfo(s"file:/t/_delta_log/$name", 1, 1))

  test("versions are named with 20 digits, zeros first") {
    assert(FileNames.padded(0) === "00000000000000000000")
    assert(FileNames.commitName(7) === "00000000000000000007.json")
    assert(FileNames.padded(1234567890123L) === "00000001234567890123")
    assert(FileNames.padded(Long.MaxValue) === "09223372036854775807")
  }

  test("every file name of the spec parses to its kind; others are ignored") {
    assert(
      parse("00000000000000000007.json").contains(
        CommitFile(7, FileInfo("file:/t/_delta_log/00000000000000000007.json", 1, 1))
      )
    )
    assert(
      parse("00000000000000000010.checkpoint.parquet").get
        .asInstanceOf[CheckpointFile]
        .naming === CheckpointNaming.Classic
    )
    assert(
      parse("00000000000000000010.checkpoint.0000000002.0000000003.parquet").get
        .asInstanceOf[CheckpointFile]
        .naming === CheckpointNaming.MultiPart(2, 3)
    )
    assert(
      parse("00000000000000000010.checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.json").get
        .asInstanceOf[CheckpointFile]
        .naming ===
        CheckpointNaming.Uuid("80a083e8-7026-4e79-81be-64bd76c43a11", "json")
    )
    assert(
      parse("00000000000000000004.00000000000000000006.compacted.json").get ===
        CompactionFile(
          4,
          6,
          FileInfo(
            "file:/t/_delta_log/00000000000000000004.00000000000000000006.compacted.json",
            1,
            1
          )
        )
    )
    assert(parse("00000000000000000003.crc").get.isInstanceOf[VersionChecksumFile])
    Seq(
      "_last_checkpoint",
      ".00000000000000000003.json.crc",
      "0000000000000000003.json",
      "00000000000000000010.checkpoint.0000000004.0000000003.parquet",
      "00000000000000000006.00000000000000000004.compacted.json",
      "x.json",
      "_sidecars"
    )
      .foreach(n => assert(parse(n).isEmpty, n))
  }

  test("JSON checksum: the spec's test vector") {
    val json = """{"k0":"'v 0'", "checksum": "adsaskfljadfkjadfkj", "k1":{"k2": 2, "k3": ["v3",""" +
      """ [1, 2], {"k4": "v4", "k5": ["v5", "v6", "v7"]}]}}"""
    assert(
      LastCheckpointChecksum.canonicalize(json) ===
        "\"k0\"=\"%27v%200%27\",\"k1\"+\"k2\"=2,\"k1\"+\"k3\"+0=\"v3\",\"k1\"+\"k3\"+1+0=1," +
        "\"k1\"+\"k3\"+1+1=2,\"k1\"+\"k3\"+2+\"k4\"=\"v4\",\"k1\"+\"k3\"+2+\"k5\"+0=\"v5\"," +
        "\"k1\"+\"k3\"+2+\"k5\"+1=\"v6\",\"k1\"+\"k3\"+2+\"k5\"+2=\"v7\""
    )
    assert(LastCheckpointChecksum.checksum(json) === "6a92d155a59bf2eecbd4b4ec7fd1f875")
  }

  test("_last_checkpoint: a matching checksum is accepted, a wrong or duplicate one is not") {
    val body = """{"version":10,"size":13,"parts":2}"""
    // The checksum as delta-spark computes it, not txlog.
    val (_, theirs) = org.apache.spark.sql.delta.TxlogReferenceAccess.lastCheckpointChecksums(body)
    val good = body.dropRight(1) + s""","checksum":"$theirs"}"""
    assert(LastCheckpoint.parse(good).map(_.parts) === Right(Some(2)))
    assert(LastCheckpoint.parse(body).map(_.version) === Right(10L))
    assert(LastCheckpoint.parse(body.dropRight(1) + ""","checksum":"abc"}""").isLeft)
    assert(LastCheckpoint.parse("""{"version":1,"version":2}""").isLeft)
    assert(LastCheckpoint.parse("{").isLeft)
  }

  test("relative, absolute and escaped spellings of one file canonicalize alike") {
    val root = "file:/data/t"
    val expected = "file:/data/t/a=1/part 0.parquet"
    Seq(
      "a=1/part%200.parquet",
      "file:/data/t/a=1/part%200.parquet",
      "file:///data/t/a=1/part%200.parquet",
      "/data/t/a=1/part%200.parquet"
    )
      .foreach(p => assert(FileKeys.canonicalize(root, p) === expected, p))
    assert(FileKeys.canonicalize(root, "s3a://b/x%3Ay.parquet") === "s3a://b/x:y.parquet")
  }
}
