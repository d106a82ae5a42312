#!/usr/bin/env python3
"""Drives Gemini CLI's interactive mode (it needs a terminal) through a pseudo-terminal.

    gemini_interactive.py --script SCRIPT.json --log OUT.screen.log -- CMD ARGS...

CMD (receiver.mjs running gemini) runs on the pty. For each of the script's
"prompts" in turn: wait until the input box is shown, type its "say" and Enter,
then answer each tool-approval dialog as it appears: Esc (the user's refusal,
"No, suggest changes") when the pending call shows one of the script's
"reject" texts, Enter ("Allow once") otherwise; the prompt is over when the
screen has been still for QUIET seconds with no approval dialog and no spinner.
Then /quit. Every wait has a timeout; at the end the process group is ended.
Standard library only (pty, select).
"""
import argparse, fcntl, json, os, re, select, signal, struct, subprocess, sys, termios, time

QUIET = 3.0          # seconds of no output: the agent is idle
STEP_TIMEOUT = 90.0  # a prompt's whole run, dialogs included
DIALOG = re.compile(r'Apply this change\?|Allow execution of|Do you want to proceed\?')
ANSI = re.compile(rb'\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b[()][A-Z0-9]|\x1b[=>]')


class Terminal:
    def __init__(self, cmd, log):
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack('HHHH', 50, 140, 0, 0))
        env = dict(os.environ, TERM='xterm-256color', COLUMNS='140', LINES='50')
        self.proc = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True)
        os.close(slave)
        self.log = open(log, 'wb')
        self.text = ''       # everything shown, escapes removed
        self.last_output = time.time()
        self.closed = False

    def pump(self, seconds):
        """Reads what the program shows for up to `seconds`."""
        end = time.time() + seconds
        while not self.closed and time.time() < end:
            ready, _, _ = select.select([self.master], [], [], 0.1)
            if not ready:
                continue
            try:
                data = os.read(self.master, 65536)
            except OSError:
                data = b''
            if not data:
                self.closed = True
                break
            self.log.write(data)
            self.text += ANSI.sub(b'', data).decode('utf8', 'replace')
            self.last_output = time.time()

    def type(self, keys):
        os.write(self.master, keys.encode())

    def wait_for(self, pattern, since, timeout):
        end = time.time() + timeout
        while time.time() < end and not self.closed:
            if re.search(pattern, self.text[since:]):
                return True
            self.pump(0.2)
        raise SystemExit(f'gemini_interactive: timed out waiting for {pattern!r}')

    def end(self):
        for sig in (signal.SIGTERM, signal.SIGKILL):
            if self.proc.poll() is not None:
                break
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass


def pending_dialog(term, since):
    """The text of the approval dialog the screen shows now, or None: the last
    dialog drawn since `since` is still up when the screen has been still for
    a second with nothing much drawn after it (a running tool's spinner
    redraws many times a second)."""
    shown = term.text[since:]
    last = None
    for last in DIALOG.finditer(shown):
        pass
    if last is None or len(shown) - last.end() > 1500 or time.time() - term.last_output < 1.0:
        return None
    return shown[max(0, last.start() - 1500):]


def run_prompt(term, prompt, reject):
    """Types one prompt and answers its approval dialogs until the agent is idle."""
    term.wait_for(r'Type your message', since=0, timeout=30)
    for ch in prompt['say']:          # typed, as a user would (a paste is shown as "[Pasted text]")
        term.type(ch)
        term.pump(0.01)
    term.pump(0.5)
    since = len(term.text)
    term.type('\r')
    end = time.time() + STEP_TIMEOUT
    while time.time() < end:
        term.pump(0.3)
        dialog = pending_dialog(term, since)
        if dialog is not None:
            refuse = any(r in dialog for r in reject)
            print(f'gemini_interactive: approval dialog, {"refused (Esc)" if refuse else "allowed once (Enter)"}', file=sys.stderr)
            since = len(term.text)    # what is drawn from now on follows the answer
            term.type('\x1b' if refuse else '\r')
            continue
        if time.time() - term.last_output >= QUIET and 'esc to cancel' not in term.text[-600:]:
            return
    raise SystemExit(f'gemini_interactive: prompt {prompt["say"]!r} did not finish in {STEP_TIMEOUT}s')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--script', required=True)
    ap.add_argument('--log', required=True)
    ap.add_argument('cmd', nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = args.cmd[1:] if args.cmd[:1] == ['--'] else args.cmd
    script = json.load(open(args.script))
    term = Terminal(cmd, args.log)
    try:
        for prompt in script['prompts']:
            run_prompt(term, prompt, script.get('reject', []))
        term.type('/quit')
        term.pump(1)
        term.type('\r')
        term.pump(15)           # telemetry is flushed at exit; receiver.mjs then writes its summary
        if term.proc.poll() is None:
            term.type('\r')
            term.pump(10)
        term.proc.wait(timeout=20)
    finally:
        term.end()
    tail = term.text[-400:]
    print(tail, file=sys.stderr)
    return term.proc.returncode or 0


if __name__ == '__main__':
    sys.exit(main())
