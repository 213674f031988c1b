ls /proc | head -5; ls /proc | wc -l; ls -la /proc/self /proc/thread-self; cat /proc/1/status | head -3; readlink /proc/self; echo $$; ls -d /proc/$$
stat -f /proc /sys /tmp
echo "vm: 0 passed, 0 failed"
