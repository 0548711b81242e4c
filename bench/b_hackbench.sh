#!/bin/sh
# rt-tests hackbench, processes and threads: seconds (lower is better).
p=$(hackbench -g 8 -f 10 -l 300 2>&1 | sed -n 's/^Time: *//p')
t=$(hackbench -T -g 8 -f 10 -l 300 2>&1 | sed -n 's/^Time: *//p')
echo "{\"bench\":\"hackbench\",\"process_s\":${p:-null},\"thread_s\":${t:-null}}"
