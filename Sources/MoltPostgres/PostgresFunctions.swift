import Molt

/// PL/pgSQL functions that convert values with ``ValueConversion``'s Swift rules rather than PostgreSQL's own
/// text forms (`100` for a double where Swift writes `100.0`), created in `pg_temp` by ``PostgresLink`` before the
/// next statement it sends once a session's dialect rendered a call to one (``PostgresFunctionUse``): they vanish
/// with the session and never become part of the store, and a migration that converts nothing does not pay for
/// them. No statement's text is read to find them.
///
/// Both start from PostgreSQL's shortest round-trip text of a double (`extra_float_digits = 1`, set on every
/// connection), the same digits as Swift's `%.15g`…`%.17g` search, and lay them out as Swift does.
enum PostgresFunctions {
    /// One of the functions.
    enum Function: String, CaseIterable, Sendable {
        /// `pg_temp.molt_digits(x)`: the significant digits of |x| and the exponent of the first one.
        case digits = "pg_temp.molt_digits"
        /// `pg_temp.molt_double_text(x)`: ``ValueConversion/text(double:)``.
        case doubleText = "pg_temp.molt_double_text"
        /// `pg_temp.molt_date_text(x)`: ``ValueConversion/text(dateSince1970:)``.
        case dateText = "pg_temp.molt_date_text"

        /// The functions its body calls.
        var calls: [Function] {
            switch self {
            case .digits: return []
            case .doubleText: return [.digits]
            case .dateText: return [.doubleText, .digits]
            }
        }

        /// The statement that creates it (idempotent).
        var definition: String {
            switch self {
            case .digits: return PostgresFunctions.digits
            case .doubleText: return PostgresFunctions.doubleTextDefinition
            case .dateText: return PostgresFunctions.dateTextDefinition
            }
        }
    }

    /// `functions` and those they call, in an order where each comes after the functions it calls.
    static func creationOrder(_ functions: Set<Function>) -> [Function] {
        var all = functions
        var pending = Array(functions)
        while let function = pending.popLast() {
            for callee in function.calls where all.insert(callee).inserted { pending.append(callee) }
        }
        return Function.allCases.filter(all.contains)
    }

    /// `pg_temp.molt_digits(x)`: the significant digits of |x| and the exponent of the first one.
    private static let digits = """
        CREATE OR REPLACE FUNCTION pg_temp.molt_digits(x double precision, OUT digits text, OUT exponent integer)
        LANGUAGE plpgsql IMMUTABLE STRICT AS $molt$
        DECLARE t text := ltrim(abs(x)::text, '-'); mantissa text; whole text; fraction text;
        BEGIN
            IF position('e' in t) > 0 THEN
                mantissa := split_part(t, 'e', 1);
                exponent := split_part(t, 'e', 2)::integer;
                digits := rtrim(replace(mantissa, '.', ''), '0');
            ELSE
                whole := split_part(t, '.', 1);
                fraction := split_part(t, '.', 2);
                IF whole <> '0' THEN
                    exponent := length(whole) - 1;
                    digits := rtrim(whole || fraction, '0');
                ELSE
                    exponent := -(length(fraction) - length(ltrim(fraction, '0')) + 1);
                    digits := rtrim(ltrim(fraction, '0'), '0');
                END IF;
            END IF;
            IF digits = '' THEN digits := '0'; exponent := 0; END IF;
        END $molt$
        """

    private static let doubleTextDefinition = """
        CREATE OR REPLACE FUNCTION pg_temp.molt_double_text(x double precision) RETURNS text
        LANGUAGE plpgsql IMMUTABLE STRICT AS $molt$
        DECLARE d record; n integer; p integer; body text; sign text := '';
        BEGIN
            IF x = 'NaN'::double precision THEN RETURN 'nan'; END IF;
            IF x = 'Infinity'::double precision THEN RETURN 'inf'; END IF;
            IF x = '-Infinity'::double precision THEN RETURN '-inf'; END IF;
            IF x < 0 OR (x = 0 AND x::text = '-0') THEN sign := '-'; END IF;
            d := pg_temp.molt_digits(x);
            n := length(d.digits);
            p := greatest(15, n);
            IF d.exponent < -4 OR d.exponent >= p THEN
                body := substr(d.digits, 1, 1) || '.' || CASE WHEN n > 1 THEN substr(d.digits, 2) ELSE '0' END
                    || 'e' || CASE WHEN d.exponent < 0 THEN '-' ELSE '+' END || lpad(abs(d.exponent)::text, 2, '0');
            ELSIF d.exponent < 0 THEN
                body := '0.' || repeat('0', -d.exponent - 1) || d.digits;
            ELSIF n > d.exponent + 1 THEN
                body := substr(d.digits, 1, d.exponent + 1) || '.' || substr(d.digits, d.exponent + 2);
            ELSE
                body := rpad(d.digits, d.exponent + 1, '0') || '.0';
            END IF;
            RETURN sign || body;
        END $molt$
        """

    private static let dateTextDefinition = """
        CREATE OR REPLACE FUNCTION pg_temp.molt_date_text(s double precision) RETURNS text
        LANGUAGE plpgsql IMMUTABLE STRICT AS $molt$
        DECLARE whole double precision; fraction double precision; days bigint; sod bigint; z bigint; era bigint;
            doe bigint; yoe bigint; doy bigint; mp bigint; dd bigint; mm bigint; yy bigint; f record; digits text;
        BEGIN
            IF s = 'NaN'::double precision OR s = 'Infinity'::double precision OR s = '-Infinity'::double precision
                OR abs(s) >= 1e15 THEN
                RETURN pg_temp.molt_double_text(s);
            END IF;
            whole := floor(s);
            fraction := s - whole;
            days := div(whole::bigint, 86400);
            sod := whole::bigint - days * 86400;
            IF sod < 0 THEN days := days - 1; sod := sod + 86400; END IF;
            z := days + 719468;
            era := div(CASE WHEN z >= 0 THEN z ELSE z - 146096 END, 146097);
            doe := z - era * 146097;
            yoe := div(doe - div(doe, 1460) + div(doe, 36524) - div(doe, 146096), 365);
            doy := doe - (365 * yoe + div(yoe, 4) - div(yoe, 100));
            mp := div(5 * doy + 2, 153);
            dd := doy - div(153 * mp + 2, 5) + 1;
            mm := CASE WHEN mp < 10 THEN mp + 3 ELSE mp - 9 END;
            yy := yoe + era * 400 + CASE WHEN mm <= 2 THEN 1 ELSE 0 END;
            IF fraction = 0 THEN
                digits := '000';
            ELSE
                f := pg_temp.molt_digits(fraction);
                -- At least three digits, and every digit the fraction needs (rpad alone would also cut them to three).
                digits := repeat('0', -f.exponent - 1) || f.digits;
                IF length(digits) < 3 THEN digits := rpad(digits, 3, '0'); END IF;
            END IF;
            RETURN lpad(yy::text, 4, '0') || '-' || lpad(mm::text, 2, '0') || '-' || lpad(dd::text, 2, '0') || 'T'
                || lpad(div(sod, 3600)::text, 2, '0') || ':' || lpad((div(sod, 60) % 60)::text, 2, '0') || ':'
                || lpad((sod % 60)::text, 2, '0') || '.' || digits || 'Z';
        END $molt$
        """
}

/// The ``PostgresFunctions`` a session's dialect rendered calls to and its link has not created yet: the dialect
/// notes each as it writes the call, the link creates them before the next statement it sends.
final class PostgresFunctionUse: Sendable {
    private let wanted = LockedValue<Set<PostgresFunctions.Function>>([])

    /// Notes that a statement about to be sent calls `function`.
    func note(_ function: PostgresFunctions.Function) { wanted.withLock { _ = $0.insert(function) } }

    /// The functions noted since the last call, which are forgotten.
    func take() -> Set<PostgresFunctions.Function> {
        wanted.withLock { wanted in
            defer { wanted = [] }
            return wanted
        }
    }
}
