package txlog.config

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, Paths}

import scala.jdk.CollectionConverters._

import txlog.{DeltaLog, SparkSuite, TxlogException}
import txlog.txn.TxnTestKit

/** The registry of `spark.txlog.*` settings ([[TxlogConf]]) is the only place a key is spelled in
  * the main sources; every key named in the Python package, the tests, the benchmarks and the docs
  * is a registered one; `docs/configuration.md` lists the registry as it is; and a bad value is
  * INVALID_SETTING before anything is written, never its default in its place.
  */
class TxlogConfSuite extends SparkSuite {
  private val base: Path = Paths.get("").toAbsolutePath
  private val Key = """(?<![\w.])spark\.txlog\.[A-Za-z0-9_.<>]*[A-Za-z0-9_>]""".r

  private def files(dir: String, exts: Set[String]): Seq[Path] = {
    val d = base.resolve(dir)
    if (!Files.isDirectory(d)) Nil
    else {
      val s = Files.walk(d)
      try
        s.iterator()
          .asScala
          .filter(p => Files.isRegularFile(p) && exts.exists(p.toString.endsWith))
          .filterNot(p => p.toString.contains("/.venv/") || p.toString.contains("/out/"))
          .toList
      finally s.close()
    }
  }

  private def read(p: Path) = new String(Files.readAllBytes(p), UTF_8)

  private val registered: Set[String] =
    TxlogConf.all.flatMap(s => s.key +: s.formerKeys).toSet ++ TxlogConf.patterns.map(_._1)

  /** Whether `key` is a registered key, or a per-scheme key of a registered pattern. */
  private def known(key: String): Boolean =
    registered(key) || key.contains("<area>") || registered.exists(_.startsWith(key + ".")) ||
      TxlogConf.patterns.exists { case (p, _, _) =>
        val Array(pre, post) = p.split("<scheme>", 2)
        key.startsWith(pre) && key.endsWith(post) && key.length > pre.length + post.length
      }

  test("the main sources spell spark.txlog.* keys only in the registry (and errors naming them)") {
    val main = files("src/main", Set(".scala"))
    assert(main.size > 100, s"the sources were not found under $base")
    val spelled = main.flatMap(p => Key.findAllIn(read(p)).map(k => base.relativize(p) -> k))
    val outside = spelled.filterNot { case (p, _) => p.toString.contains("/config/") }
    // Errors and docs may name a key for the user; each must be a registered one.
    val unknown = spelled.filterNot { case (_, k) => known(k) }
    assert(unknown.isEmpty, s"keys not in TxlogConf: $unknown")
    val readElsewhere = outside.filter { case (p, _) =>
      val code = read(base.resolve(p)).linesIterator.filterNot { l =>
        val t = l.trim
        t.startsWith("*") || t.startsWith("/**") || t.startsWith("//")
      }
      code.exists(l => Key.findFirstIn(l).isDefined && !p.toString.endsWith("Errors.scala"))
    }
    assert(readElsewhere.isEmpty, s"keys spelled outside txlog.config: $readElsewhere")
  }

  test("every spark.txlog.* key in the Python package, tests, benchmarks and docs is registered") {
    val places = files("python", Set(".py")) ++ files("tests", Set(".py")) ++
      files("bench", Set(".py", ".md")) ++ files("docs", Set(".md")) ++
      files("src/test", Set(".scala")) ++
      Seq("README.md", "Makefile").map(base.resolve(_)).filter(Files.isRegularFile(_))
    val unknown = places.flatMap { p =>
      Key.findAllIn(read(p)).filterNot(known).map(k => s"${base.relativize(p)}: $k")
    }
    assert(unknown.isEmpty, s"unregistered keys: ${unknown.distinct}")
  }

  test("docs/configuration.md lists every setting with its default") {
    val doc = base.resolve("docs/configuration.md")
    assume(Files.isRegularFile(doc), "docs/configuration.md not written yet")
    val text = read(doc)
    val table = TxlogConf.markdownTable
    assert(text.contains(table), s"its table is not TxlogConf's; the table is:\n$table\nEND")
    TxlogConf.all.filterNot(_.internal).foreach(s => assert(text.contains(s"`${s.key}`"), s.key))
  }

  test("keys follow one pattern: spark.txlog.<area>.<name>, budgets named max<What>") {
    TxlogConf.all.map(_.key).foreach { k =>
      assert(k.matches("""spark\.txlog\.[a-z]+\.[a-z][A-Za-z]*"""), k)
      assert(!k.matches(""".*[a-z]Max[A-Z].*"""), s"$k: a budget is named max<What>")
    }
    assert(TxlogConf.all.map(_.key).distinct.size === TxlogConf.all.size)
  }

  test("a bad value is INVALID_SETTING naming the key, before the commit writes anything") {
    val dir = tempDir("conf").resolve("t").toString
    DeltaLog.createTable(spark, dir, TxnTestKit.schema, Seq("part"), Map.empty)
    val cases = Seq(
      "spark.txlog.commit.maxAttempts" -> "0",
      "spark.txlog.commit.maxAttempts" -> "many",
      "spark.txlog.commit.maxDriverBytes" -> "-1",
      "spark.txlog.storage.singleWriter" -> "yes",
      "spark.txlog.storage.file.kind" -> "atomic",
      "spark.txlog.checkpoint.rowsPerFile" -> "0",
      ("spark.txlog.commit." + "maxAttempt") -> "5" // misspelt: not a setting
    )
    cases.foreach { case (key, value) =>
      spark.conf.set(key, value)
      val e =
        try
          intercept[TxlogException] {
            DeltaLog
              .forTable(spark, dir)
              .startTransaction()
              .addFiles(TxnTestKit.adds(spark, Seq("a.parquet")))
              .commit()
          }
        finally spark.conf.unset(key)
      assert(e.errorClass === "INVALID_SETTING", s"$key=$value: $e")
      assert(e.getMessage.contains(key), e.getMessage)
      if (key.endsWith("maxAttempt"))
        assert(e.getMessage.contains("spark.txlog.commit.maxAttempts"))
      else assert(e.getMessage.contains(s"'$value'"), e.getMessage)
      assert(DeltaLog.forTable(spark, dir).update().version === 0L, s"$key=$value")
    }
  }

  test("settings are checked again whenever they change, and a bad one raises each time") {
    val dir = tempDir("conf-again").resolve("t").toString
    DeltaLog.createTable(spark, dir, TxnTestKit.schema, Seq("part"), Map.empty)
    def open(): Unit = DeltaLog.forTable(spark, dir)
    open()
    val key = "spark.txlog.commit." + "maxAttempt" // misspelt: not a setting
    spark.conf.set(key, "5")
    try {
      for (_ <- 1 to 2) {
        assert(intercept[TxlogException](open()).errorClass === "INVALID_SETTING")
      }
      spark.conf.set(key, "6")
      assert(intercept[TxlogException](open()).getMessage.contains(key))
    } finally spark.conf.unset(key)
    open()
    spark.conf.set("spark.txlog.commit.maxAttempts", "0")
    try assert(intercept[TxlogException](open()).errorClass === "INVALID_SETTING")
    finally spark.conf.unset("spark.txlog.commit.maxAttempts")
    open()
  }

  test("a setting is read under its former key too; the current key wins") {
    val s = TxlogConf.ReplayMaxLocalReadBytes
    assert(s.formerKeys === Seq("spark.txlog.replay.localReadMaxBytes"))
    try {
      spark.conf.set("spark.txlog.replay.localReadMaxBytes", "7")
      assert(s.get(spark) === Some(7L))
      spark.conf.set(s.key, "9")
      assert(s.get(spark) === Some(9L))
    } finally {
      spark.conf.unset("spark.txlog.replay.localReadMaxBytes")
      spark.conf.unset(s.key)
    }
    assert(s.get(spark) === None)
    assert(TxlogConf.CheckpointRowsPerFile.from(Some(" 4000 ")) === 4000L)
    assert(TxlogConf.StorageAtomicRenameSchemes.from(Some("ABFS, ,gs")) === Seq("abfs", "gs"))
  }
}
