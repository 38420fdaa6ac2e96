;;; emacs_driver.el --- drive Emacs + eglot in batch mode against pack-lsp  -*- lexical-binding: t -*-
;; The test writes the documented configuration to init.el and sets PACK_FILE, RESULT_FILE,
;; EXPECTED_COUNT, COMPLETION_LINE (1-based) and COMPLETION_COLUMN (code points).
;; Every wait is for a condition, with a timeout.
(require 'package)
;; Debian installs ELPA packages (elpa-eglot, elpa-yaml-mode) here; -Q skips the site start-up.
(add-to-list 'package-directory-list "/usr/share/emacs/site-lisp/elpa")
(package-initialize)
(require 'json)
(load (getenv "INIT_FILE") nil t)

(defvar driver-result (list))
(defun driver-put (key value) (push (cons key value) driver-result))
(defun driver-finish ()
  (with-temp-file (getenv "RESULT_FILE")
    (insert (json-encode driver-result)))
  (kill-emacs 0))

(defun driver-wait (seconds predicate)
  "Process server output until PREDICATE holds or SECONDS pass; return PREDICATE's value."
  (let ((deadline (+ (float-time) seconds)) (done nil))
    (while (and (not (setq done (funcall predicate))) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    done))

(defun driver-diagnostics ()
  (mapcar (lambda (d)
            (let ((beg (flymake-diagnostic-beg d)))
              (save-excursion
                (goto-char beg)
                (list (cons 'line (1- (line-number-at-pos beg)))
                      (cons 'character (- beg (line-beginning-position)))
                      (cons 'type (format "%s" (flymake-diagnostic-type d)))
                      (cons 'text (flymake-diagnostic-text d))))))
          (flymake-diagnostics)))

(condition-case err
    (progn
      (find-file (getenv "PACK_FILE"))
      (driver-put 'major_mode (format "%s" major-mode))
      ;; eglot-ensure connects from post-command-hook; batch mode runs no commands.
      (run-hooks 'post-command-hook)
      (unless (driver-wait 30 (lambda () (eglot-current-server)))
        (error "eglot did not connect"))
      (driver-put 'server (format "%s" (plist-get (eglot--server-info (eglot-current-server)) :name)))
      (let ((expected (string-to-number (getenv "EXPECTED_COUNT"))))
        (unless (driver-wait 30 (lambda () (>= (length (flymake-diagnostics)) expected)))
          (error "flymake got %d diagnostics" (length (flymake-diagnostics)))))
      ;; Completion at point inside the `tools:` list.
      (goto-char (point-min))
      (forward-line (1- (string-to-number (getenv "COMPLETION_LINE"))))
      (forward-char (string-to-number (getenv "COMPLETION_COLUMN")))
      (let* ((capf (eglot-completion-at-point))
             (table (nth 2 capf)))
        (driver-put 'completion (vconcat (all-completions "" table))))
      ;; A round trip later, the diagnostics as flymake holds them.
      (jsonrpc-request (eglot-current-server) :textDocument/hover
                       (eglot--TextDocumentPositionParams))
      (driver-put 'diagnostics (vconcat (driver-diagnostics)))
      (driver-finish))
  (error
   (driver-put 'error (format "%S" err))
   (driver-finish)))
