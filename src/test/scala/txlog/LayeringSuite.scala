package txlog

import java.io.{DataInputStream, File, FileInputStream}

import scala.collection.mutable

import org.scalatest.funsuite.AnyFunSuite

import txlog.errors.TxlogErrors

/** The packages' layering, read from the compiled classes: every class file's constant pool (its
  * "import list": the classes, method and field descriptors it refers to), so a reference written
  * with a fully qualified name counts as much as an `import`. `protocol` is the bottom layer, the
  * spec alone: it refers to no other txlog package, and of the API root only to the spec's own
  * types and the errors. The edges the architecture forbids (a lower layer reaching up) are listed
  * below; a class that brings one back fails here, naming it.
  */
class LayeringSuite extends AnyFunSuite with txlog.testing.Claimed {

  /** The API root's classes `protocol` may use: the actions it defines rules for, and the error
    * type with its classes (the error builders are package `errors`, below protocol).
    */
  private val rootForProtocol = Set("Protocol", "Metadata", "TxlogException", "ErrorClasses")

  /** The packages `protocol` may use: those below it. */
  private val belowProtocol = Set("protocol", "errors")

  /** A package (left) that may not refer to the packages on the right. */
  private val forbidden: Map[String, Set[String]] = Map(
    "util" -> Set("log", "replay", "scan", "txn", "write", "table", "checkpoint"),
    "storage" -> Set("log", "replay", "scan", "txn", "write", "table", "checkpoint"),
    "log" -> Set("replay", "scan", "txn", "write", "checkpoint", "table"),
    "deletionvectors" -> Set("replay", "scan", "txn", "write"),
    "replay" -> Set("scan", "txn", "write", "changes"),
    "scan" -> Set("txn", "write", "changes"),
    "txn" -> Set("write", "scan", "changes"),
    "checkpoint" -> Set("txn", "write", "scan"),
    // The Python facade serves py4j and Connect alike; only the Connect plugin knows Connect.
    "python" -> Set("connect")
  )

  private lazy val classes: File = new File(
    classOf[DeltaLog].getProtectionDomain.getCodeSource.getLocation.toURI
  )

  /** Each class of package `txlog.<pkg>` (simple file name) with the txlog packages and root
    * classes it refers to (`pkg` for a package, `/Name` for a root class).
    */
  private lazy val references: Map[String, Map[String, Set[String]]] = {
    val out = mutable.Map.empty[String, Map[String, Set[String]]]
    val root = new File(classes, "txlog")
    for (dir <- Option(root.listFiles()).toSeq.flatten.filter(_.isDirectory)) {
      val files = Option(dir.listFiles()).toSeq.flatten.filter(_.getName.endsWith(".class"))
      out(dir.getName) = files.map(f => f.getName -> refs(f)).toMap
    }
    out.toMap
  }

  /** A txlog class name, at the start of a constant or after a descriptor's `L` (not inside another
    * package's name, as the shims' `org/apache/spark/sql/txlog/`).
    */
  private val Ref = "(?:^|(?<=[L\\[(;<]))txlog/([A-Za-z0-9_$]+)(/)?".r

  /** The txlog packages and root classes the Utf8 constants of class file `f` name. */
  private def refs(f: File): Set[String] = {
    val in = new DataInputStream(new java.io.BufferedInputStream(new FileInputStream(f)))
    try {
      require(in.readInt() == 0xcafebabe, s"$f is not a class file")
      in.readUnsignedShort(); in.readUnsignedShort()
      val count = in.readUnsignedShort()
      val found = mutable.Set.empty[String]
      var i = 1
      while (i < count) {
        in.readUnsignedByte() match {
          case 1 =>
            Ref.findAllMatchIn(in.readUTF()).foreach { m =>
              found += (if (m.group(2) != null) m.group(1)
                        else "/" + m.group(1).takeWhile(_ != '$'))
            }
          case 3 | 4                      => in.skipBytes(4)
          case 5 | 6                      => in.skipBytes(8); i += 1
          case 7 | 8 | 16 | 19 | 20       => in.skipBytes(2)
          case 9 | 10 | 11 | 12 | 17 | 18 => in.skipBytes(4)
          case 15                         => in.skipBytes(3)
          case tag                        => fail(s"$f: constant pool tag $tag unknown")
        }
        i += 1
      }
      found.toSet
    } finally in.close()
  }

  test("the compiled classes are there to read") {
    assert(references.keySet.contains("protocol") && references.keySet.contains("txn"))
    assert(references("protocol").size > 10)
    // edges that exist are seen: a class named in a descriptor, a root class
    assert(references("write").values.flatten.toSet.contains("txn"))
    assert(references("protocol").values.flatten.toSet.contains("errors"))
  }

  test("protocol is the bottom layer: no other txlog package, only the spec's root types") {
    val breaks = references("protocol").toSeq.flatMap { case (cls, rs) =>
      rs.filter(r => !belowProtocol(r) && !(r.startsWith("/") && rootForProtocol(r.drop(1))))
        .map(r => s"$cls -> $r")
    }
    assert(breaks.isEmpty, breaks.sorted.mkString("\n"))
  }

  test("errors is below protocol: it builds errors from the root's error type alone") {
    // BuildInfo: the build's version, which a wrong-jar message names
    val allowed = Set("errors", "/TxlogException", "/ErrorClasses", "/BuildInfo")
    val breaks = references("errors").toSeq.flatMap { case (cls, rs) =>
      rs.filterNot(allowed).map(r => s"$cls -> $r")
    }
    assert(references("errors").nonEmpty)
    assert(breaks.isEmpty, breaks.sorted.mkString("\n"))
  }

  test("the API root holds no error builders (they are package errors)") {
    val root = Option(new File(classes, "txlog").listFiles()).toSeq.flatten.map(_.getName)
    assert(root.contains("TxlogException.class"))
    val builders =
      root.filter(n => n.endsWith(".class") && n.takeWhile(_ != '.').contains("Errors"))
    assert(builders.isEmpty, builders.sorted.mkString(", "))
  }

  test("no package reaches up to a layer above it") {
    val breaks = for {
      (pkg, above) <- forbidden.toSeq
      (cls, rs) <- references.getOrElse(pkg, Map.empty).toSeq
      r <- rs if above(r)
    } yield s"$pkg.$cls -> $r"
    assert(breaks.isEmpty, breaks.sorted.mkString("\n"))
  }
}
