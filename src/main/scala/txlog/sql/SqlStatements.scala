package txlog.sql

import scala.util.Try

/** A txlog SQL statement as parsed, its table still the text that names it. */
private[txlog] sealed trait SqlStatement {

  /** The text naming the table (an identifier, parsed by the delegate parser). */
  def table: String
}

private[txlog] object SqlStatement {
  final case class History(table: String, limit: Option[Int]) extends SqlStatement
  final case class Detail(table: String) extends SqlStatement
  final case class Vacuum(
      table: String,
      retainHours: Option[Double],
      dryRun: Boolean,
      lite: Boolean
  ) extends SqlStatement
  final case class Optimize(table: String, where: Option[String]) extends SqlStatement
  final case class Restore(table: String, version: Option[Long], timestamp: Option[String])
      extends SqlStatement
  final case class Purge(table: String, where: Option[String]) extends SqlStatement
  final case class Checkpoint(table: String) extends SqlStatement
  final case class Validate(table: String) extends SqlStatement
  final case class Repair(table: String, dryRun: Boolean, force: Boolean) extends SqlStatement
  final case class AddConstraint(table: String, name: String, condition: String)
      extends SqlStatement
  final case class DropConstraint(table: String, name: String, ifExists: Boolean)
      extends SqlStatement
}

/** Recognizes txlog's statements in SQL text (delta-spark's grammar for DESCRIBE HISTORY / DETAIL,
  * VACUUM, OPTIMIZE, RESTORE, REORG and ALTER TABLE ... ADD CONSTRAINT name CHECK (condition) /
  * DROP CONSTRAINT [IF EXISTS] name; txlog's own for CHECKPOINT, VALIDATE and REPAIR TXLOG).
  * Anything else, or a statement in a form it does not know (`OPTIMIZE ... ZORDER BY`, a path given
  * as a string), is None: the text goes to the delegate parser untouched.
  */
private[txlog] object SqlStatements {
  import SqlStatement._

  private sealed trait Tok { def start: Int; def end: Int }
  private final case class Word(upper: String, start: Int, end: Int) extends Tok
  private final case class Quoted(start: Int, end: Int) extends Tok
  private final case class Str(value: String, start: Int, end: Int) extends Tok
  private final case class Num(text: String, start: Int, end: Int) extends Tok
  private final case class Sym(c: Char, start: Int, end: Int) extends Tok

  /** The statement `sql` is, when it is one of txlog's. */
  def parse(sql: String): Option[SqlStatement] =
    lex(sql).flatMap(toks => Try(statement(sql, trimSemicolon(toks))).toOption.flatten)

  private def trimSemicolon(t: Vector[Tok]): Vector[Tok] = t.lastOption match {
    case Some(Sym(';', _, _)) => t.init
    case _                    => t
  }

  private def statement(sql: String, t: Vector[Tok]): Option[SqlStatement] = {
    def kw(i: Int, w: String) = t.lift(i).exists { case Word(u, _, _) => u == w; case _ => false }
    def kws(i: Int, ws: String*) = ws.indices.forall(k => kw(i + k, ws(k)))
    def rest(i: Int) = if (i >= t.size) "" else sql.substring(t(i).start, t.last.end)
    def between(i: Int, j: Int) = sql.substring(t(i).start, t(j - 1).end)
    def ident(i: Int): Option[(String, Int)] = identEnd(t, i).map(j => between(i, j) -> j)
    def done(i: Int) = i == t.size
    if (kws(0, "DESCRIBE", "HISTORY")) {
      ident(2).flatMap {
        case (name, j) if done(j) => Some(History(name, None))
        case (name, j) if kw(j, "LIMIT") && done(j + 2) =>
          t(j + 1) match {
            case Num(n, _, _) => Try(n.toInt).toOption.map(l => History(name, Some(l)))
            case _            => None
          }
        case _ => None
      }
    } else if (kws(0, "DESCRIBE", "DETAIL")) {
      ident(2).collect { case (name, j) if done(j) => Detail(name) }
    } else if (kw(0, "VACUUM")) {
      ident(1).flatMap { case (name, j0) =>
        var j = j0
        val lite = kw(j, "LITE")
        if (lite || kw(j, "FULL")) j += 1
        val retain = kw(j, "RETAIN") && kw(j + 2, "HOURS")
        val hours = if (retain) t(j + 1) match {
          case Num(n, _, _) => Try(n.toDouble).toOption
          case _            => None
        }
        else None
        if (retain) j += 3
        val dry = kws(j, "DRY", "RUN")
        if (dry) j += 2
        if (done(j) && retain == hours.isDefined) Some(Vacuum(name, hours, dry, lite)) else None
      }
    } else if (kw(0, "OPTIMIZE")) {
      ident(1).flatMap {
        case (name, j) if done(j) => Some(Optimize(name, None))
        case (name, j) if kw(j, "WHERE") && !t.exists(isWord(_, "ZORDER")) && !done(j + 1) =>
          Some(Optimize(name, Some(rest(j + 1))))
        case _ => None
      }
    } else if (kw(0, "RESTORE")) {
      val at = if (kw(1, "TABLE")) 2 else 1
      ident(at).flatMap {
        case (name, j) if kws(j, "TO", "VERSION", "AS", "OF") && done(j + 5) =>
          t(j + 4) match {
            case Num(n, _, _) => Try(n.toLong).toOption.map(v => Restore(name, Some(v), None))
            case _            => None
          }
        case (name, j) if kws(j, "TO", "TIMESTAMP", "AS", "OF") && done(j + 5) =>
          t(j + 4) match {
            case Str(s, _, _) => Some(Restore(name, None, Some(s)))
            case _            => None
          }
        case _ => None
      }
    } else if (kws(0, "REORG", "TABLE")) {
      val n = t.size
      val purge = n >= 4 && kw(n - 4, "APPLY") && isSym(t(n - 3), '(') && kw(n - 2, "PURGE") &&
        isSym(t(n - 1), ')')
      if (!purge) None
      else
        ident(2).flatMap {
          case (name, j) if j == n - 4 => Some(Purge(name, None))
          case (name, j) if kw(j, "WHERE") && j + 1 < n - 4 =>
            Some(Purge(name, Some(between(j + 1, n - 4))))
          case _ => None
        }
    } else if (kws(0, "CHECKPOINT", "TABLE")) {
      ident(2).collect { case (name, j) if done(j) => Checkpoint(name) }
    } else if (kws(0, "VALIDATE", "TABLE")) {
      ident(2).collect { case (name, j) if done(j) => Validate(name) }
    } else if (kws(0, "REPAIR", "TXLOG", "TABLE")) {
      ident(3).collect {
        case (name, j) if done(j) => Repair(name, dryRun = true, force = false)
        case (name, j) if kws(j, "DRY", "RUN") && done(j + 2) =>
          Repair(name, dryRun = true, force = false)
        case (name, j) if kw(j, "APPLY") && done(j + 1) => Repair(name, dryRun = false, false)
        case (name, j) if kws(j, "APPLY", "FORCE") && done(j + 2) =>
          Repair(name, dryRun = false, force = true)
      }
    } else if (kws(0, "ALTER", "TABLE")) {
      ident(2).flatMap {
        case (name, j) if kws(j, "ADD", "CONSTRAINT") && kw(j + 3, "CHECK") =>
          val n = t.size
          val wrapped = n > j + 6 && isSym(t(j + 4), '(') && isSym(t(n - 1), ')')
          nameAt(sql, t, j + 2).filter(_ => wrapped).map { c =>
            AddConstraint(name, c, spaced(sql, t.slice(j + 5, n - 1)))
          }
        case (name, j) if kws(j, "DROP", "CONSTRAINT") =>
          val ifExists = kws(j + 2, "IF", "EXISTS")
          val at = if (ifExists) j + 4 else j + 2
          nameAt(sql, t, at).filter(_ => done(at + 1)).map(DropConstraint(name, _, ifExists))
        case _ => None
      }
    } else None
  }

  /** Operators of Spark's SQL lexer longer than one character. */
  private val Operators =
    Set("<>", "<=", ">=", "!=", "==", "<=>", "||", "::", "->", "=>", "!<", "!>")

  /** The tokens `t` of `sql` as written, one space between tokens, as delta-spark keeps a CHECK
    * constraint's condition (its parser joins the condition's tokens with spaces): operators of
    * several characters and numbers with a suffix (`10L`, `1e3`) are one token each.
    */
  private def spaced(sql: String, t: Vector[Tok]): String = {
    val out = scala.collection.mutable.ArrayBuffer.empty[(String, Tok)]
    t.foreach { tok =>
      val raw = sql.substring(tok.start, tok.end)
      val glued = out.lastOption.exists { case (text, last) =>
        last.end == tok.start && ((last, tok) match {
          case (_: Sym, _: Sym)  => Operators(text + raw)
          case (_: Num, _: Word) => true
          case _                 => false
        })
      }
      if (glued) out(out.size - 1) = (out.last._1 + raw, tok)
      else out += (raw -> tok)
    }
    out.map(_._1).mkString(" ")
  }

  /** The one-part name at `i`: a word as written, or a quoted name unquoted. */
  private def nameAt(sql: String, t: Vector[Tok], i: Int): Option[String] = t.lift(i).collect {
    case Word(_, s, e) => sql.substring(s, e)
    case Quoted(s, e)  => sql.substring(s + 1, e - 1).replace("``", "`")
  }

  private def isWord(t: Tok, w: String) = t match {
    case Word(u, _, _) => u == w
    case _             => false
  }

  /** The end (exclusive) of the identifier starting at `i`: parts joined by dots. */
  private def identEnd(t: Vector[Tok], i: Int): Option[Int] = {
    def part(k: Int) = t.lift(k).exists {
      case _: Word | _: Quoted => true
      case _                   => false
    }
    if (!part(i)) None
    else {
      var j = i + 1
      while (t.lift(j).exists(isDot) && part(j + 1)) j += 2
      Some(j)
    }
  }

  private def isDot(t: Tok) = isSym(t, '.')

  private def isSym(t: Tok, c: Char) = t match {
    case Sym(d, _, _) => d == c
    case _            => false
  }

  /** The tokens of `sql`, or None when it has something this lexer does not know (a comment). */
  private def lex(sql: String): Option[Vector[Tok]] = {
    val out = Vector.newBuilder[Tok]
    var i = 0
    val n = sql.length
    while (i < n) {
      val c = sql.charAt(i)
      if (c.isWhitespace) i += 1
      else if (c == '-' && sql.startsWith("--", i) || c == '/' && sql.startsWith("/*", i)) {
        return None
      } else if (c == '`' || c == '\'' || c == '"') {
        var j = i + 1
        val b = new StringBuilder
        var closed = false
        while (j < n && !closed) {
          val d = sql.charAt(j)
          if (d == c && j + 1 < n && sql.charAt(j + 1) == c) { b += c; j += 2 }
          else if (d == c) { closed = true; j += 1 }
          else if (d == '\\' && c != '`' && j + 1 < n) { b += sql.charAt(j + 1); j += 2 }
          else { b += d; j += 1 }
        }
        if (!closed) return None
        out += (if (c == '`') Quoted(i, j) else Str(b.toString, i, j))
        i = j
      } else if (c.isDigit) {
        var j = i
        while (j < n && (sql.charAt(j).isDigit || sql.charAt(j) == '.')) j += 1
        out += Num(sql.substring(i, j), i, j)
        i = j
      } else if (c.isLetter || c == '_') {
        var j = i
        while (j < n && (sql.charAt(j).isLetterOrDigit || sql.charAt(j) == '_')) j += 1
        out += Word(sql.substring(i, j).toUpperCase(java.util.Locale.ROOT), i, j)
        i = j
      } else { out += Sym(c, i, i + 1); i += 1 }
    }
    Some(out.result())
  }
}
