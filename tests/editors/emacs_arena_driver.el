;;; emacs_arena_driver.el --- Emacs + eglot in an arena project  -*- lexical-binding: t -*-
;; The test writes the documented configuration to init.el and sets OPENED_FILE (a
;; PromptConfig), SCENARIO_FILE, RESULT_FILE and EXPECTED_COUNT. The driver records the
;; opened file's Flymake diagnostics, then jumps to the definition of the scenario's
;; task_type and records where it landed. Every wait is for a condition, with a timeout.
(require 'package)
(add-to-list 'package-directory-list "/usr/share/emacs/site-lisp/elpa")
(package-initialize)
(require 'json)
(require 'xref)
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

(defun driver-connect ()
  ;; eglot-ensure connects from post-command-hook; batch mode runs no commands.
  (run-hooks 'post-command-hook)
  (unless (driver-wait 30 (lambda () (eglot-current-server)))
    (error "eglot did not connect in %s" (buffer-file-name))))

(condition-case err
    (progn
      (find-file (getenv "OPENED_FILE"))
      (driver-connect)
      (let ((expected (string-to-number (getenv "EXPECTED_COUNT"))))
        (unless (driver-wait 30 (lambda () (>= (length (flymake-diagnostics)) expected)))
          (error "flymake got %d diagnostics" (length (flymake-diagnostics)))))
      (jsonrpc-request (eglot-current-server) :textDocument/hover
                       (eglot--TextDocumentPositionParams))
      (driver-put 'diagnostics
                  (vconcat
                   (mapcar (lambda (d)
                             (let ((beg (flymake-diagnostic-beg d)))
                               (save-excursion
                                 (goto-char beg)
                                 (list (cons 'line (1- (line-number-at-pos beg)))
                                       (cons 'character (- beg (line-beginning-position)))
                                       (cons 'text (flymake-diagnostic-text d))))))
                           (flymake-diagnostics))))
      (find-file (getenv "SCENARIO_FILE"))
      (driver-connect)
      (goto-char (point-min))
      (search-forward "task_type: ")
      (forward-char 2)
      (let ((scenario (current-buffer)))
        (call-interactively #'xref-find-definitions)
        (unless (driver-wait 30 (lambda () (not (eq (current-buffer) scenario))))
          (error "go-to-definition stayed in the scenario")))
      (driver-put 'landed_file (buffer-file-name))
      (driver-put 'landed_line (1- (line-number-at-pos)))
      (driver-put 'landed_character (- (point) (line-beginning-position)))
      (driver-finish))
  (error
   (driver-put 'error (format "%S" err))
   (driver-finish)))
