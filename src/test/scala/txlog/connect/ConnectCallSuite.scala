package txlog.connect

import java.io.ByteArrayOutputStream

import org.scalatest.funsuite.AnyFunSuite
import org.sparkproject.connect.protobuf.CodedOutputStream

import txlog.TxlogException

/** The `txlog.connect.Call` message as the protobuf library writes it (field numbers of
  * docs/connect.md) read back by [[ConnectCall.parse]], unknown fields skipped; and the bound of
  * [[ConnectHandles]]. The Python client's messages are exercised end to end by the Python API
  * suites on Spark Connect (`make test`'s pytest-connect part).
  */
class ConnectCallSuite extends AnyFunSuite with txlog.testing.Claimed {

  private def message(write: CodedOutputStream => Unit): Array[Byte] = {
    val bytes = new ByteArrayOutputStream()
    val out = CodedOutputStream.newInstance(bytes)
    write(out)
    out.flush()
    bytes.toByteArray
  }

  test("a call written by the protobuf library reads back whole; unknown fields are skipped") {
    val bytes = message { out =>
      out.writeString(1, "forTable")
      out.writeString(2, """[{"session": true}, "/data/t"]""")
      out.writeByteArray(3, Array[Byte](1, 2, 3))
      out.writeByteArray(3, Array[Byte](4))
      out.writeByteArray(4, Array[Byte](5, 6))
      out.writeString(5, "h1")
      out.writeString(5, "h2")
      out.writeString(6, "a nonce")
      out.writeInt64(99, 42L) // a field of a newer client
    }
    val call = ConnectCall.parse(bytes)
    assert(call.method === "forTable")
    assert(call.arguments === """[{"session": true}, "/data/t"]""")
    assert(call.relations.map(_.toSeq) === Seq(Seq[Byte](1, 2, 3), Seq[Byte](4)))
    assert(call.expressions.map(_.toSeq) === Seq(Seq[Byte](5, 6)))
    assert(call.released === Seq("h1", "h2"))
  }

  test("a message that does not parse, or names no method, is INVALID_ARGUMENT") {
    for (bytes <- Seq(Array[Byte](0x0a, 0x7f, 0x61), message(_.writeString(2, "[]")))) {
      val e = intercept[TxlogException](ConnectCall.parse(bytes))
      assert(e.errorClass === "INVALID_ARGUMENT")
      assert(e.getMessage.contains("'call'"))
    }
  }

  test("handles: a session keeps its bound of the most recently used; released ones are gone") {
    val handles = new ConnectHandles(bound = 3)
    val ids = (1 to 4).map(i => handles.put(s"object $i"))
    assert(ids.distinct.size === 4 && handles.size === 3)
    val dropped = intercept[TxlogException](handles.get(ids.head))
    assert(dropped.errorClass === "INVALID_ARGUMENT")
    assert(dropped.getMessage.contains(s"${ids.head} is not an object of this"))
    assert(handles.get(ids(1)) === "object 2") // used: now the most recent
    handles.put("object 5")
    assert(handles.get(ids(1)) === "object 2")
    intercept[TxlogException](handles.get(ids(2)))
    handles.release(Seq(ids(1)))
    intercept[TxlogException](handles.get(ids(1)))
    assert(handles.size === 2)
  }

  test("a closed session's handles go") {
    val session = s"suite-${java.util.UUID.randomUUID()}"
    val before = ConnectHandles.sessionCount
    val id = ConnectHandles.of(session).put("kept")
    assert(ConnectHandles.of(session).get(id) === "kept")
    assert(ConnectHandles.sessionCount === before + 1)
    ConnectHandles.closed(session)
    assert(ConnectHandles.sessionCount === before)
    intercept[TxlogException](ConnectHandles.of(session).get(id))
  }
}
